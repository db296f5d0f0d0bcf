// Command kube-testenv runs a real, throw-away Kubernetes control plane on loopback for tests:
// an embedded etcd, kube-apiserver and a kube-controller-manager limited to the controllers that
// make ownerReferences and namespace deletion real. See README.md for the contract with callers.
//
// The same binary plays three roles, chosen by its first argument:
//
//	kube-testenv [flags]                  the supervisor (etcd in-process, the others as children)
//	kube-testenv apiserver <flags>        kube-apiserver, exactly as upstream parses its flags
//	kube-testenv controller-manager <f>   kube-controller-manager, likewise
//
// kube-apiserver and kube-controller-manager each install process-wide flags, metrics and
// signal handling, so each gets a process of its own.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "time/tzdata" // CronJob time zones, as the upstream commands do

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as upstream
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream
	apiserverapp "k8s.io/kubernetes/cmd/kube-apiserver/app"
	kcmapp "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "apiserver":
			cmd := apiserverapp.NewAPIServerCommand()
			cmd.SetArgs(os.Args[2:])
			os.Exit(cli.Run(cmd))
		case "controller-manager":
			cmd := kcmapp.NewControllerManagerCommand()
			cmd.SetArgs(os.Args[2:])
			os.Exit(cli.Run(cmd))
		}
	}
	os.Exit(supervise(os.Args[1:]))
}

// repeated collects the values of a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, " ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

type options struct {
	maxInflight         int
	maxMutatingInflight int
	apiserverArgs       repeated
	kcmArgs             repeated
	crds                repeated
	parentDir           string
	keep                bool
	readyTimeout        time.Duration
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "kube-testenv: "+format+"\n", args...)
}

func parseOptions(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("kube-testenv", flag.ContinueOnError)
	fs.IntVar(&o.maxInflight, "max-requests-inflight", 400,
		"kube-apiserver --max-requests-inflight (with APF: part of the total concurrency limit)")
	fs.IntVar(&o.maxMutatingInflight, "max-mutating-requests-inflight", 200,
		"kube-apiserver --max-mutating-requests-inflight (with APF: the rest of the total concurrency limit)")
	fs.Var(&o.apiserverArgs, "apiserver-arg", "extra kube-apiserver flag, e.g. --apiserver-arg=--watch-cache=false (repeatable; later flags win)")
	fs.Var(&o.kcmArgs, "controller-manager-arg", "extra kube-controller-manager flag (repeatable; later flags win)")
	fs.Var(&o.crds, "crd", "YAML file or directory of YAML files of CustomResourceDefinitions to install before the controller-manager starts (repeatable)")
	fs.StringVar(&o.parentDir, "dir", "", "parent directory for the temporary directory (default: the system temp dir)")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (logs, audit log, etcd data) at exit")
	fs.DurationVar(&o.readyTimeout, "ready-timeout", 3*time.Minute, "give up if not ready within this time")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q (roles are 'apiserver' and 'controller-manager', given first)", fs.Args())
	}
	if o.maxInflight < 1 || o.maxMutatingInflight < 1 {
		return nil, errors.New("--max-requests-inflight and --max-mutating-requests-inflight must be at least 1")
	}
	return o, nil
}

// supervise runs the control plane until stdin closes or a signal arrives. It returns the exit code.
func supervise(args []string) int {
	o, err := parseOptions(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		logf("%v", err)
		return 2
	}

	dir, err := os.MkdirTemp(o.parentDir, "kube-testenv-")
	if err != nil {
		logf("cannot create a temporary directory: %v", err)
		return 1
	}
	env := &testenv{opts: o, dir: dir}
	defer env.teardown()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Stop on SIGTERM/SIGINT and when stdin closes; both may come while still starting.
	stop := make(chan string, 3)
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() { s := <-signals; stop <- "signal " + s.String() }()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
		stop <- "stdin closed"
	}()

	started := make(chan error, 1)
	go func() { started <- env.start(ctx) }()
	var out sync.Mutex
	reply := func(format string, args ...any) {
		out.Lock()
		defer out.Unlock()
		fmt.Printf(format+"\n", args...)
	}
starting:
	for {
		select {
		case err := <-started:
			if err != nil {
				logf("start failed: %v", err)
				env.dumpLogTails()
				return 1
			}
			break starting
		case line := <-lines:
			if strings.TrimSpace(line) != "" {
				reply("error not ready")
			}
		case why := <-stop:
			logf("stopping before ready: %s", why)
			cancel()
			<-started
			return 0
		}
	}

	reply("READY kubeconfig=%s audit=%s server=%s", env.kubeconfigPath, env.auditPath, env.serverURL)
	exited := env.exited()
	for {
		select {
		case line := <-lines:
			env.command(ctx, strings.TrimSpace(line), reply)
		case why := <-stop:
			logf("stopping: %s", why)
			return 0
		case err := <-exited:
			logf("a component stopped on its own: %v", err)
			env.dumpLogTails()
			return 1
		}
	}
}

// command runs one line read from stdin and prints exactly one line in reply.
func (e *testenv) command(ctx context.Context, line string, reply func(string, ...any)) {
	switch line {
	case "":
	case "compact":
		rev, err := e.compact(ctx)
		if err != nil {
			reply("error compact: %v", oneLine(err))
			return
		}
		reply("compacted %d", rev)
	case "revision":
		rev, err := e.revision(ctx)
		if err != nil {
			reply("error revision: %v", oneLine(err))
			return
		}
		reply("revision %d", rev)
	default:
		reply("error unknown command %q (commands: compact, revision)", line)
	}
}

func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

func (e *testenv) dumpLogTails() {
	for _, name := range []string{"apiserver.log", "controller-manager.log", "etcd.log"} {
		data, err := os.ReadFile(filepath.Join(e.dir, name))
		if err != nil || len(data) == 0 {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > 25 {
			lines = lines[len(lines)-25:]
		}
		logf("last lines of %s:\n%s", name, strings.Join(lines, "\n"))
	}
}
