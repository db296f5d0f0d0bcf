package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// poll calls cond every 200ms until it returns true, an error, or ctx ends.
func poll(ctx context.Context, what string, cond func() (bool, error)) error {
	for {
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: not within the time allowed", what)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// crdFiles expands the --crd arguments: a file, or the *.yaml / *.yml / *.json files of a directory.
func crdFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		var inDir []string
		for _, entry := range entries {
			ext := strings.ToLower(filepath.Ext(entry.Name()))
			if !entry.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
				inDir = append(inDir, filepath.Join(a, entry.Name()))
			}
		}
		sort.Strings(inDir)
		files = append(files, inDir...)
	}
	return files, nil
}

// installCRDs creates the CustomResourceDefinitions of --crd and waits until each is Established.
// Documents of other kinds in the files are refused, so that a wrong path is noticed.
func (e *testenv) installCRDs(ctx context.Context) error {
	files, err := crdFiles(e.opts.crds)
	if err != nil || len(files) == 0 {
		return err
	}
	client, err := dynamic.NewForConfig(e.admin)
	if err != nil {
		return err
	}
	var names []string
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
		for {
			var obj unstructured.Unstructured
			err := decoder.Decode(&obj.Object)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				f.Close()
				return fmt.Errorf("%s: %w", file, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			if obj.GetKind() != "CustomResourceDefinition" {
				f.Close()
				return fmt.Errorf("%s: a %s is not a CustomResourceDefinition", file, obj.GetKind())
			}
			if _, err := client.Resource(crdResource).Create(ctx, &obj, metav1.CreateOptions{}); err != nil {
				f.Close()
				return fmt.Errorf("%s: %w", file, err)
			}
			names = append(names, obj.GetName())
		}
		f.Close()
	}
	for _, name := range names {
		err := poll(ctx, "CRD "+name+" established", func() (bool, error) {
			crd, err := client.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			for _, c := range conditions {
				m, _ := c.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return err
		}
	}
	logf("installed %d CRDs", len(names))
	return nil
}

// probeControllers proves the controllers work before READY is printed: the namespace gets its
// default ServiceAccount, the garbage collector removes a dependent whose owner is deleted, and
// the namespace controller removes the emptied namespace.
func (e *testenv) probeControllers(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(e.admin)
	if err != nil {
		return err
	}
	const ns = "kube-testenv-probe"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	configMaps := cs.CoreV1().ConfigMaps(ns)
	owner, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	dependent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "dependent",
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID,
		}},
	}}
	if _, err := configMaps.Create(ctx, dependent, metav1.CreateOptions{}); err != nil {
		return err
	}
	err = poll(ctx, "serviceaccount controller creates the default ServiceAccount", func() (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return err
	}
	background := metav1.DeletePropagationBackground
	if err := configMaps.Delete(ctx, owner.Name, metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		return err
	}
	err = poll(ctx, "garbage collector removes the dependent", func() (bool, error) {
		_, err := configMaps.Get(ctx, dependent.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return err
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		return err
	}
	return poll(ctx, "namespace controller removes the namespace", func() (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}
