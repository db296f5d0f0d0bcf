package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestEndToEnd builds the binary with build.sh (cached), starts it as a caller would, and checks
// the contract: the READY line, cascading deletion, TokenRequest with RBAC, compaction that
// expires a continue token with a real 410, and that closing stdin removes everything.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane (about a minute)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	build := exec.CommandContext(ctx, "./build.sh")
	build.Stderr = os.Stderr
	out, err := build.Output()
	if err != nil {
		t.Fatalf("build.sh: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	binary := lines[len(lines)-1]

	cmd := exec.Command(binary)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() { // whatever happens, nothing outlives the test
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Signal(syscall.SIGTERM)
			<-exited
		}
	}()
	stdout := bufio.NewReader(stdoutPipe)

	readLine := func() string {
		t.Helper()
		got := make(chan string, 1)
		go func() {
			line, err := stdout.ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				line = "read error: " + err.Error()
			}
			got <- strings.TrimSpace(line)
		}()
		select {
		case line := <-got:
			return line
		case <-ctx.Done():
			t.Fatal("no line on stdout in time")
			return ""
		}
	}

	ready := readLine()
	fields := map[string]string{}
	for _, f := range strings.Fields(strings.TrimPrefix(ready, "READY ")) {
		k, v, _ := strings.Cut(f, "=")
		fields[k] = v
	}
	if !strings.HasPrefix(ready, "READY ") || fields["kubeconfig"] == "" || fields["audit"] == "" ||
		!strings.HasPrefix(fields["server"], "https://127.0.0.1:") {
		t.Fatalf("first line is not a READY line: %q", ready)
	}
	dir := filepath.Dir(fields["kubeconfig"])

	config, err := clientcmd.BuildConfigFromFlags("", fields["kubeconfig"])
	if err != nil {
		t.Fatal(err)
	}
	if config.Host != fields["server"] {
		t.Fatalf("kubeconfig server %s, READY server %s", config.Host, fields["server"])
	}
	admin := kubernetes.NewForConfigOrDie(config)

	ns := "e2e"
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cms := admin.CoreV1().ConfigMaps(ns)
	owner, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	gcCtx, gcCancel := context.WithTimeout(ctx, 30*time.Second)
	defer gcCancel()
	err = poll(gcCtx, "dependent collected", func() (bool, error) {
		_, err := cms.Get(ctx, "dependent", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		t.Fatal(err)
	}

	// A ServiceAccount's token from the TokenRequest API authenticates, and RBAC refuses it.
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "producer"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "producer", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	saConfig := rest.AnonymousClientConfig(config)
	saConfig.BearerToken = token.Status.Token
	_, err = kubernetes.NewForConfigOrDie(saConfig).CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "system:serviceaccount:e2e:producer") {
		t.Fatalf("want 403 for the service account, got %v", err)
	}

	// Compaction expires a continue token: a real 410 (within the watch cache's 15 s poll).
	for _, name := range []string{"a", "b", "c"} {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := cms.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil || page.Continue == "" {
		t.Fatalf("want a continue token, got %v / %q", err, page.Continue)
	}
	if _, err := io.WriteString(stdin, "compact\n"); err != nil {
		t.Fatal(err)
	}
	if reply := readLine(); !strings.HasPrefix(reply, "compacted ") {
		t.Fatalf("compact answered %q", reply)
	}
	expiry, expiryCancel := context.WithTimeout(ctx, 40*time.Second)
	defer expiryCancel()
	err = poll(expiry, "continue token expires", func() (bool, error) {
		_, err := cms.List(ctx, metav1.ListOptions{Limit: 1, Continue: page.Continue})
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		t.Fatal(err)
	}

	audit, err := os.ReadFile(fields["audit"])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(audit), `"username":"system:serviceaccount:kube-system:generic-garbage-collector"`) ||
		!strings.Contains(string(audit), `"code":410`) {
		t.Fatal("audit log lacks the garbage collector's requests or the 410")
	}

	// Closing stdin stops everything and removes the directory.
	stdin.Close()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still running 30 s after stdin closed")
	}
	exited <- nil // for the deferred cleanup
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s still exists: %v", dir, err)
	}
}
