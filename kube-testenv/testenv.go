package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The identities of the static token file. The admin is in system:masters, which RBAC always
// allows and API Priority and Fairness always exempts.
const (
	adminUser = "kube-testenv-admin"
	kcmUser   = "system:kube-controller-manager"
	// serviceAccountIssuer is the iss claim of ServiceAccount tokens and their default audience.
	serviceAccountIssuer = "https://kubernetes.default.svc.cluster.local"
	// compactRevKey is the etcd key where kube-apiserver records the last compacted revision.
	compactRevKey = "compact_rev_key"
)

// controllers are the kube-controller-manager controllers that run: ownerReferences cascade,
// namespaces are emptied and removed, every namespace gets its "default" ServiceAccount (Pods
// need it to pass admission), legacy token Secrets are filled, kube-root-ca.crt is published, and
// aggregated ClusterRoles (admin, edit, view and any labelled for aggregation) get their rules.
var controllers = []string{
	"garbage-collector-controller",
	"namespace-controller",
	"serviceaccount-controller",
	"serviceaccount-token-controller",
	"root-ca-certificate-publisher-controller",
	"clusterrole-aggregation-controller",
}

type child struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

type testenv struct {
	opts *options
	dir  string

	etcd       *embed.Etcd
	etcdClient *clientv3.Client
	etcdURL    string

	adminToken     string
	kcmToken       string
	pki            *pki
	serverURL      string
	kubeconfigPath string
	auditPath      string
	admin          *rest.Config

	mu       sync.Mutex
	stopping bool
	children []*child
}

func (e *testenv) path(name string) string { return filepath.Join(e.dir, name) }

// freePort asks the kernel for a free loopback port. Another process may take it before it is
// used; the callers retry on "address already in use".
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (e *testenv) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, e.opts.readyTimeout)
	defer cancel()
	began := time.Now()

	if err := e.writeConfiguration(); err != nil {
		return err
	}
	if err := e.startEtcd(); err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	logf("etcd ready at %s (%.1fs)", e.etcdURL, time.Since(began).Seconds())

	if err := e.startAPIServer(ctx); err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	logf("kube-apiserver ready at %s (%.1fs)", e.serverURL, time.Since(began).Seconds())

	if err := e.installCRDs(ctx); err != nil {
		return fmt.Errorf("CRDs: %w", err)
	}

	if err := e.startChild("controller-manager", e.controllerManagerArgs()); err != nil {
		return fmt.Errorf("kube-controller-manager: %w", err)
	}
	if err := e.probeControllers(ctx); err != nil {
		return fmt.Errorf("kube-controller-manager: %w", err)
	}
	logf("kube-controller-manager ready (%.1fs)", time.Since(began).Seconds())
	return nil
}

// writeConfiguration writes the keys, certificates, token file and audit policy.
func (e *testenv) writeConfiguration() error {
	var err error
	if e.pki, err = newPKI(); err != nil {
		return fmt.Errorf("generate keys: %w", err)
	}
	if e.adminToken, err = newToken(); err != nil {
		return err
	}
	if e.kcmToken, err = newToken(); err != nil {
		return err
	}
	// token,user,uid,"group1,group2"
	tokens := fmt.Sprintf("%s,%s,%s,\"system:masters\"\n%s,%s,%s\n",
		e.adminToken, adminUser, adminUser, e.kcmToken, kcmUser, kcmUser)
	// One event per request at Metadata level: user, verb, resource, response code (no bodies).
	// RequestReceived is left out so that a request that completes makes exactly one line;
	// long-running requests (watches) also log ResponseStarted.
	policy := "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [\"RequestReceived\"]\nrules:\n- level: Metadata\n"
	e.auditPath = e.path("audit.log")
	return writeFiles(map[string][]byte{
		e.path("ca.crt"):            e.pki.caPEM,
		e.path("serving.crt"):       e.pki.servingCert,
		e.path("serving.key"):       e.pki.servingKey,
		e.path("sa.key"):            e.pki.saPrivateKey,
		e.path("sa.pub"):            e.pki.saPublicKey,
		e.path("tokens.csv"):        []byte(tokens),
		e.path("audit-policy.yaml"): []byte(policy),
	})
}

func (e *testenv) startEtcd() error {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		clientPort, err := freePort()
		if err != nil {
			return err
		}
		peerPort, err := freePort()
		if err != nil {
			return err
		}
		clientURL := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(clientPort)}
		peerURL := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(peerPort)}
		cfg := embed.NewConfig()
		cfg.Name = "kube-testenv"
		cfg.Dir = e.path("etcd")
		cfg.ListenClientUrls = []url.URL{clientURL}
		cfg.AdvertiseClientUrls = []url.URL{clientURL}
		cfg.ListenPeerUrls = []url.URL{peerURL}
		cfg.AdvertisePeerUrls = []url.URL{peerURL}
		cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
		cfg.LogLevel = "warn"
		cfg.LogOutputs = []string{e.path("etcd.log")}
		// Throw-away data: no fsync, which matters on a shared disk.
		cfg.UnsafeNoFsync = true
		etcd, err := embed.StartEtcd(cfg)
		if err != nil {
			lastErr = err
			os.RemoveAll(cfg.Dir)
			if strings.Contains(err.Error(), "address already in use") {
				continue
			}
			return err
		}
		select {
		case <-etcd.Server.ReadyNotify():
		case <-time.After(60 * time.Second):
			etcd.Close()
			return errors.New("not ready within 60s")
		}
		e.etcd = etcd
		e.etcdClient = v3client.New(etcd.Server)
		e.etcdURL = clientURL.String()
		return nil
	}
	return lastErr
}

func (e *testenv) apiServerArgs(port int) []string {
	args := []string{
		"--etcd-servers=" + e.etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + e.path("apiserver-certs"),
		"--tls-cert-file=" + e.path("serving.crt"),
		"--tls-private-key-file=" + e.path("serving.key"),
		"--client-ca-file=" + e.path("ca.crt"),
		"--token-auth-file=" + e.path("tokens.csv"),
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=" + serviceAccountIssuer,
		"--service-account-key-file=" + e.path("sa.pub"),
		"--service-account-signing-key-file=" + e.path("sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		// The "kubernetes" Service gets no Endpoints: a loopback endpoint is invalid and nothing
		// in the cluster needs to reach the API server through the Service.
		"--endpoint-reconciler-type=none",
		"--audit-policy-file=" + e.path("audit-policy.yaml"),
		"--audit-log-path=" + e.auditPath,
		"--audit-log-format=json",
		"--audit-log-mode=blocking",
		"--enable-priority-and-fairness=true",
		"--max-requests-inflight=" + strconv.Itoa(e.opts.maxInflight),
		"--max-mutating-requests-inflight=" + strconv.Itoa(e.opts.maxMutatingInflight),
		"--profiling=false",
	}
	return append(args, e.opts.apiserverArgs...)
}

func (e *testenv) startAPIServer(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		e.serverURL = "https://127.0.0.1:" + strconv.Itoa(port)
		e.admin = &rest.Config{
			Host:            e.serverURL,
			BearerToken:     e.adminToken,
			TLSClientConfig: rest.TLSClientConfig{CAData: e.pki.caPEM},
			QPS:             -1, // no client-side rate limit
			Timeout:         30 * time.Second,
		}
		if err := e.startChild("apiserver", e.apiServerArgs(port)); err != nil {
			return err
		}
		err = e.waitReady(ctx)
		if err == nil {
			return e.writeKubeconfigs()
		}
		apiserver := e.children[len(e.children)-1]
		select {
		case <-apiserver.done:
			log, _ := os.ReadFile(e.path("apiserver.log"))
			if attempt < 2 && strings.Contains(string(log), "address already in use") {
				logf("port %d was taken, trying another", port)
				e.mu.Lock()
				e.children = e.children[:len(e.children)-1]
				e.mu.Unlock()
				continue
			}
		default:
		}
		return err
	}
}

// waitReady polls /readyz until it answers ok.
func (e *testenv) waitReady(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(e.admin)
	if err != nil {
		return err
	}
	client := cs.Discovery().RESTClient()
	apiserver := e.children[len(e.children)-1]
	var last string
	for {
		body, err := client.Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) == "ok" {
			return nil
		}
		if err != nil {
			last = err.Error()
		}
		select {
		case <-apiserver.done:
			return fmt.Errorf("exited before ready: %v", apiserver.err)
		case <-ctx.Done():
			return fmt.Errorf("not ready in time (last answer: %s)", last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func kubeconfig(server string, ca []byte, user, token string) *clientcmdapi.Config {
	c := clientcmdapi.NewConfig()
	c.Clusters["kube-testenv"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	c.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	c.Contexts["kube-testenv"] = &clientcmdapi.Context{Cluster: "kube-testenv", AuthInfo: user, Namespace: "default"}
	c.CurrentContext = "kube-testenv"
	return c
}

func (e *testenv) writeKubeconfigs() error {
	e.kubeconfigPath = e.path("kubeconfig")
	if err := clientcmd.WriteToFile(*kubeconfig(e.serverURL, e.pki.caPEM, adminUser, e.adminToken), e.kubeconfigPath); err != nil {
		return err
	}
	return clientcmd.WriteToFile(*kubeconfig(e.serverURL, e.pki.caPEM, kcmUser, e.kcmToken), e.path("controller-manager.kubeconfig"))
}

func (e *testenv) controllerManagerArgs() []string {
	args := []string{
		"--kubeconfig=" + e.path("controller-manager.kubeconfig"),
		"--controllers=" + strings.Join(controllers, ","),
		// Each controller acts as its own ServiceAccount in kube-system (as kubeadm runs it), so
		// the audit log names generic-garbage-collector, namespace-controller...
		"--use-service-account-credentials=true",
		"--service-account-private-key-file=" + e.path("sa.key"),
		"--root-ca-file=" + e.path("ca.crt"),
		"--leader-elect=false",
		"--secure-port=0", // no serving: nothing to bind
		"--kube-api-qps=100",
		"--kube-api-burst=200",
	}
	return append(args, e.opts.kcmArgs...)
}

// startChild runs this binary in a role, its output going to <role>.log. The child is killed if
// this process dies, however it dies.
func (e *testenv) startChild(role string, args []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	log, err := os.OpenFile(e.path(role+".log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(self, append([]string{role}, args...)...)
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.Dir = e.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Close()
		return err
	}
	c := &child{name: role, cmd: cmd, done: make(chan struct{})}
	e.mu.Lock()
	e.children = append(e.children, c)
	e.mu.Unlock()
	go func() {
		c.err = cmd.Wait()
		log.Close()
		close(c.done)
	}()
	return nil
}

// exited reports the first of the running components to stop.
func (e *testenv) exited() <-chan error {
	e.mu.Lock()
	children := append([]*child(nil), e.children...)
	e.mu.Unlock()
	first := make(chan error, len(children))
	for _, c := range children {
		go func() {
			<-c.done
			first <- fmt.Errorf("%s exited: %v", c.name, c.err)
		}()
	}
	return first
}

// teardown stops the children (newest first), then etcd, and removes the directory.
func (e *testenv) teardown() {
	e.mu.Lock()
	e.stopping = true
	children := append([]*child(nil), e.children...)
	e.mu.Unlock()
	for i := len(children) - 1; i >= 0; i-- {
		c := children[i]
		select {
		case <-c.done:
			continue
		default:
		}
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	}
	if e.etcdClient != nil {
		e.etcdClient.Close()
	}
	if e.etcd != nil {
		e.etcd.Close()
	}
	if e.opts.keep {
		logf("kept %s", e.dir)
		return
	}
	if err := os.RemoveAll(e.dir); err != nil {
		logf("cannot remove %s: %v", e.dir, err)
	}
}

// compact compacts etcd so that every resourceVersion and continue token handed out so far is
// expired: LISTs and continues at them, and watches from them, get 410. It writes the compacted
// revision to compact_rev_key, the key through which kube-apiserver's own compactor records
// compactions (the puts move the revision past every earlier one), then compacts at the last
// put's revision. kube-apiserver watches the key, so its
// watch cache also drops what is older (it looks every 15 s), as after its own compactions.
func (e *testenv) compact(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// A watch from resourceVersion v reads from v+1, so compacting at the newest revision + 1 would
	// leave a watch from the newest resourceVersion valid: move the revision twice.
	current, err := e.etcdClient.Get(ctx, compactRevKey)
	if err != nil {
		return 0, err
	}
	bump, err := e.etcdClient.Put(ctx, compactRevKey, strconv.FormatInt(current.Header.Revision+2, 10))
	if err != nil {
		return 0, err
	}
	rev := bump.Header.Revision + 1 // the revision of the put below, if nothing else writes first
	for {
		resp, err := e.etcdClient.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(compactRevKey), "<", rev)).
			Then(clientv3.OpPut(compactRevKey, strconv.FormatInt(rev, 10))).
			Commit()
		if err != nil {
			return 0, err
		}
		if resp.Succeeded && resp.Header.Revision == rev {
			break
		}
		// Another write came first: aim at the next revision.
		rev = resp.Header.Revision + 1
	}
	if _, err := e.etcdClient.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		return 0, err
	}
	return rev, nil
}

func (e *testenv) revision(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := e.etcdClient.Get(ctx, compactRevKey)
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}
