// Command kyverno-anchor measures the per-resource report merge that Kyverno's reports controller
// runs since Kyverno 1.12, written for Tally's benchmarks as a side-by-side anchor, on the workload
// of Tally's ReferenceWorkload (same seed, same subjects, same results).
//
// For every resource it merges the resource's existing report and its ephemeral reports: results
// keyed by source/policy/rule/uid, the later timestamp.seconds wins, on a tie the result seen
// first (the existing report's) is kept, and results whose policy or rule is not live are
// dropped; then it collects the merged results, sorts them (policy, rule, source, subjects,
// timestamp) and counts the summary. It does less than Tally: no content digest, no encoded size,
// no size-bounded splitting into groups, no content hash, no tombstones, no coverage.
//
// Usage:
//
//	kyverno-anchor [-rounds 15] [-warmup 3] [-existing=true] [-samples] [results...]
//
// results defaults to 10000 100000 1000000. For each size it prints one line:
//
//	kyverno-anchor results=100000 subjects=10000 inputs=200000 rounds=15 clock=thread-cpu gomaxprocs=2 ns_per_result_min=… ns_per_result_median=… wall_ns_per_result_min=… wall_ns_per_result_median=… pass=… fail=… warn=… error=… skip=…
//
// ns per result is per result of the merged reports (the results of the workload); the inputs
// are twice as many with -existing (the default). With -samples it also prints each measured
// round as "sample impl=kyverno-go results=… round=… cpu_ns=… wall_ns=…".
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ---------------------------------------------------------------- the report model

type objectRef struct {
	apiVersion, kind, namespace, name, uid string
}

type timestamp struct {
	seconds int64
	nanos   int32
}

type result struct {
	source, policy, rule, category, severity, message, status string
	scored                                                    bool
	timestamp                                                 timestamp
	subjects                                                  []objectRef
	properties                                                map[string]string
}

type report struct {
	namespace, name string
	results         []result
}

type summary struct {
	pass, fail, warn, error, skip int
}

func (s *summary) add(o summary) {
	s.pass += o.pass
	s.fail += o.fail
	s.warn += o.warn
	s.error += o.error
	s.skip += o.skip
}

// resource is the merge input of one resource: its existing per-resource report (nil when there
// is none yet) and its ephemeral reports, in the order they are merged.
type resource struct {
	uid       string
	existing  *report
	ephemeral []*report
}

// merged is what the controller writes back for one resource.
type merged struct {
	results []result
	summary summary
}

// liveRules holds, by policy name, the names of the policy's rules that exist.
type liveRules map[string]map[string]struct{}

func (l liveRules) has(policy, rule string) bool {
	rules, ok := l[policy]
	if !ok {
		return false
	}
	_, ok = rules[rule]
	return ok
}

// ---------------------------------------------------------------- the merge

// accumulate adds the results of rep to acc: a key seen for the first time is taken, a key seen
// before is replaced only by a strictly later timestamp.seconds.
func accumulate(acc map[string]result, live liveRules, uid string, rep *report) {
	for _, r := range rep.results {
		if !live.has(r.policy, r.rule) {
			continue
		}
		key := r.source + "/" + r.policy + "/" + r.rule + "/" + uid
		if held, ok := acc[key]; ok && held.timestamp.seconds >= r.timestamp.seconds {
			continue
		}
		acc[key] = r
	}
}

// mergeResource is the controller's work for one resource.
func mergeResource(live liveRules, res *resource) merged {
	acc := map[string]result{}
	if res.existing != nil {
		accumulate(acc, live, res.uid, res.existing)
	}
	for _, e := range res.ephemeral {
		accumulate(acc, live, res.uid, e)
	}
	results := make([]result, 0, len(acc))
	for _, r := range acc {
		results = append(results, r)
	}
	slices.SortFunc(results, compareResults)
	return merged{results: results, summary: count(results)}
}

// compareResults orders by policy, rule, source, then the subjects (their number, then their
// uids), then the timestamps in their text form, as Kyverno compares them.
func compareResults(a, b result) int {
	if c := strings.Compare(a.policy, b.policy); c != 0 {
		return c
	}
	if c := strings.Compare(a.rule, b.rule); c != 0 {
		return c
	}
	if c := strings.Compare(a.source, b.source); c != 0 {
		return c
	}
	if len(a.subjects) != len(b.subjects) {
		if len(a.subjects) < len(b.subjects) {
			return -1
		}
		return 1
	}
	for i := range a.subjects {
		if c := strings.Compare(a.subjects[i].uid, b.subjects[i].uid); c != 0 {
			return c
		}
	}
	var ta, tb [64]byte
	return bytes.Compare(timestampText(ta[:0], a.timestamp), timestampText(tb[:0], b.timestamp))
}

// timestampText appends the text form of a protobuf timestamp, "&Timestamp{Seconds:…,Nanos:…,}".
func timestampText(buf []byte, t timestamp) []byte {
	buf = append(buf, "&Timestamp{Seconds:"...)
	buf = strconv.AppendInt(buf, t.seconds, 10)
	buf = append(buf, ",Nanos:"...)
	buf = strconv.AppendInt(buf, int64(t.nanos), 10)
	return append(buf, ",}"...)
}

func count(results []result) summary {
	var s summary
	for i := range results {
		switch results[i].status {
		case "pass":
			s.pass++
		case "fail":
			s.fail++
		case "warn":
			s.warn++
		case "error":
			s.error++
		case "skip":
			s.skip++
		}
	}
	return s
}

// mergeAll merges every resource into out (one entry per resource) and returns the number of
// merged results and their summary.
func mergeAll(live liveRules, work []resource, out []merged) (int, summary) {
	total := 0
	var s summary
	for i := range work {
		out[i] = mergeResource(live, &work[i])
		total += len(out[i].results)
		s.add(out[i].summary)
	}
	return total, s
}

// ---------------------------------------------------------------- the workload

// The shape and seed of Tally's ReferenceWorkload.
const (
	workloadSeed      = 0x7a112024
	baseSeconds       = 1_700_000_000
	namespaces        = 100
	rulesPerPolicy    = 2
	resultsPerSubject = 10
	policiesEach      = resultsPerSubject / rulesPerPolicy
	engine            = "kyverno"
	// the existing report holds the previous hourly scan
	previousScan = 3600
)

var policyNames = []string{
	"disallow-capabilities",
	"disallow-host-namespaces",
	"disallow-host-path",
	"disallow-host-ports",
	"disallow-host-process",
	"disallow-privileged-containers",
	"disallow-proc-mount",
	"disallow-selinux",
	"restrict-apparmor-profiles",
	"restrict-seccomp",
	"restrict-sysctls",
	"disallow-capabilities-strict",
	"disallow-privilege-escalation",
	"require-run-as-non-root-user",
	"require-run-as-nonroot",
	"restrict-seccomp-strict",
	"restrict-volume-types",
	"require-labels",
	"require-requests-limits",
	"disallow-latest-tag",
}

func ruleName(policy string, rule int) string {
	switch rule {
	case 0:
		return "check-" + policy
	case 1:
		return "autogen-check-" + policy
	default:
		return "autogen-" + strconv.Itoa(rule) + "-check-" + policy
	}
}

func category(policy int) string {
	switch {
	case policy < 11:
		return "Pod Security Standards (Baseline)"
	case policy < 17:
		return "Pod Security Standards (Restricted)"
	default:
		return "Best Practices"
	}
}

func severity(policy int) string {
	if policy%3 == 0 {
		return "high"
	}
	return "medium"
}

func message(policy, rule, status string) string {
	switch status {
	case "pass":
		return "validation rule '" + rule + "' passed."
	case "fail":
		return "validation error: the resource violates " + policy + ". rule " + rule +
			" failed at path /spec/containers/0/securityContext/"
	case "warn":
		return "validation warning: " + policy + " will be enforced soon. rule " + rule +
			" failed at path /spec/containers/0/"
	case "error":
		return "failed to evaluate rule " + rule + ": variable substitution failed"
	default:
		return "rule " + rule + " skipped: preconditions not met"
	}
}

// drawStatus draws 90% pass, 6% fail, 2% warn, 1% error, 1% skip.
func drawStatus(rnd *javaRandom) string {
	p := rnd.nextInt(100)
	switch {
	case p < 90:
		return "pass"
	case p < 96:
		return "fail"
	case p < 98:
		return "warn"
	case p < 99:
		return "error"
	default:
		return "skip"
	}
}

// choosePolicies draws policiesEach distinct policy indexes, in increasing order.
func choosePolicies(rnd *javaRandom) []int {
	all := make([]int, len(policyNames))
	for i := range all {
		all[i] = i
	}
	for i := 0; i < policiesEach; i++ {
		j := i + int(rnd.nextInt(int32(len(all)-i)))
		all[i], all[j] = all[j], all[i]
	}
	chosen := append([]int(nil), all[:policiesEach]...)
	sort.Ints(chosen)
	return chosen
}

// uuidText writes a version-4 UUID the way java.util.UUID.toString does.
func uuidText(msb, lsb uint64) string {
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		msb>>32, (msb>>16)&0xffff, msb&0xffff, lsb>>48, lsb&0xffffffffffff)
}

// decoded returns a copy of s in its own memory, as a JSON decoder hands strings over.
func decoded(s string) string {
	return strings.Clone(s)
}

// generate builds the merge input of the reference workload at the given number of results: one
// ephemeral report per resource holding its scan, and with withExisting the resource's existing
// report, holding the previous scan (an hour earlier, every result passing), which the merge
// replaces result by result.
func generate(results int, withExisting bool) []resource {
	rnd := newJavaRandom(workloadSeed)
	subjects := results / resultsPerSubject
	work := make([]resource, subjects)
	for i := 0; i < subjects; i++ {
		namespace := fmt.Sprintf("ns-%03d", i%namespaces)
		name := fmt.Sprintf("pod-%07d", i)
		msb := uint64(rnd.nextLong())&^0xF000 | 0x4000
		lsb := uint64(rnd.nextLong())&0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
		uid := uuidText(msb, lsb)
		seconds := baseSeconds + int64(rnd.nextInt(3600))
		nanos := rnd.nextInt(1_000_000_000)
		type drawn struct {
			policy int
			rule   int
			status string
		}
		var draws []drawn
		for _, p := range choosePolicies(rnd) {
			for rule := 0; rule < rulesPerPolicy; rule++ {
				draws = append(draws, drawn{p, rule, drawStatus(rnd)})
			}
		}
		scan := func(at timestamp, statusOf func(drawn) string) *report {
			rep := &report{namespace: namespace, name: uid, results: make([]result, 0, len(draws))}
			for _, d := range draws {
				policy := policyNames[d.policy]
				rule := ruleName(policy, d.rule)
				status := statusOf(d)
				rep.results = append(rep.results, result{
					source:    decoded(engine),
					policy:    decoded(policy),
					rule:      decoded(rule),
					category:  decoded(category(d.policy)),
					severity:  decoded(severity(d.policy)),
					message:   decoded(message(policy, rule, status)),
					status:    decoded(status),
					scored:    true,
					timestamp: at,
					subjects: []objectRef{{
						decoded("v1"), decoded("Pod"), decoded(namespace), decoded(name), decoded(uid),
					}},
				})
			}
			return rep
		}
		res := resource{uid: uid}
		if withExisting {
			res.existing = scan(timestamp{seconds - previousScan, nanos},
				func(drawn) string { return "pass" })
		}
		res.ephemeral = []*report{scan(timestamp{seconds, nanos}, func(d drawn) string { return d.status })}
		work[i] = res
	}
	return work
}

// allLive is the liveness of the workload: every policy with all its rules.
func allLive() liveRules {
	live := liveRules{}
	for _, p := range policyNames {
		rules := map[string]struct{}{}
		for r := 0; r < rulesPerPolicy; r++ {
			rules[ruleName(p, r)] = struct{}{}
		}
		live[p] = rules
	}
	return live
}

// javaRandom is java.util.Random's generator (a 48-bit linear congruential generator), so that
// the workload is the one Tally's benchmarks generate from the same seed.
type javaRandom struct {
	seed int64
}

const (
	lcgMultiplier = 0x5DEECE66D
	lcgAddend     = 0xB
	lcgMask       = (1 << 48) - 1
)

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ lcgMultiplier) & lcgMask}
}

func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*lcgMultiplier + lcgAddend) & lcgMask
	return int32(r.seed >> (48 - bits))
}

func (r *javaRandom) nextInt(bound int32) int32 {
	x := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(x)) >> 31)
	}
	for u := x; ; u = r.next(31) {
		x = u % bound
		if u-x+m >= 0 { // int32 arithmetic: a negative sum is an overflow, draw again
			return x
		}
	}
}

func (r *javaRandom) nextLong() int64 {
	high := int64(r.next(32)) << 32
	return high + int64(r.next(32))
}

// ---------------------------------------------------------------- measurement

func main() {
	rounds := flag.Int("rounds", 15, "measured rounds per size")
	warmup := flag.Int("warmup", 3, "unmeasured rounds before them")
	withExisting := flag.Bool("existing", true,
		"give every resource an existing report (the previous scan) besides its ephemeral one")
	samples := flag.Bool("samples", false, "also print every measured round")
	flag.Parse()
	sizes := []int{10_000, 100_000, 1_000_000}
	if flag.NArg() > 0 {
		sizes = sizes[:0]
		for _, a := range flag.Args() {
			n, err := strconv.Atoi(a)
			if err != nil || n < resultsPerSubject || n%resultsPerSubject != 0 {
				fmt.Fprintf(os.Stderr, "results must be a positive multiple of %d, was %q\n",
					resultsPerSubject, a)
				os.Exit(2)
			}
			sizes = append(sizes, n)
		}
	}
	if *rounds < 1 || *warmup < 0 {
		fmt.Fprintln(os.Stderr, "rounds must be at least 1 and warmup at least 0")
		os.Exit(2)
	}
	// one OS thread runs the merge from here on, so that its CPU clock measures only the merge
	runtime.LockOSThread()
	live := allLive()
	for _, size := range sizes {
		work := generate(size, *withExisting)
		inputs := 0
		for i := range work {
			if work[i].existing != nil {
				inputs += len(work[i].existing.results)
			}
			for _, e := range work[i].ephemeral {
				inputs += len(e.results)
			}
		}
		out := make([]merged, len(work))
		runtime.GC()
		cpu := make([]float64, 0, *rounds)
		wall := make([]float64, 0, *rounds)
		var last summary
		for round := 0; round < *warmup+*rounds; round++ {
			startWall := time.Now()
			startCPU := threadTime()
			total, s := mergeAll(live, work, out)
			elapsedCPU := threadTime() - startCPU
			elapsedWall := time.Since(startWall)
			if total != size {
				fmt.Fprintf(os.Stderr, "merged %d results, expected %d\n", total, size)
				os.Exit(1)
			}
			last = s
			if round < *warmup {
				continue
			}
			cpu = append(cpu, float64(elapsedCPU)/float64(size))
			wall = append(wall, float64(elapsedWall.Nanoseconds())/float64(size))
			if *samples {
				fmt.Printf("sample impl=kyverno-go results=%d round=%d cpu_ns=%d wall_ns=%d\n",
					size, round-*warmup+1, elapsedCPU, elapsedWall.Nanoseconds())
			}
		}
		fmt.Printf("kyverno-anchor results=%d subjects=%d inputs=%d rounds=%d clock=%s gomaxprocs=%d "+
			"ns_per_result_min=%.1f ns_per_result_median=%.1f "+
			"wall_ns_per_result_min=%.1f wall_ns_per_result_median=%.1f "+
			"pass=%d fail=%d warn=%d error=%d skip=%d\n",
			size, len(work), inputs, *rounds, clockName, runtime.GOMAXPROCS(0),
			minimum(cpu), median(cpu), minimum(wall), median(wall),
			last.pass, last.fail, last.warn, last.error, last.skip)
	}
}

func minimum(xs []float64) float64 {
	return slices.Min(xs)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
