package main

import (
	"testing"
)

// The values java.util.Random(42) yields for this sequence of calls (read from a JVM).
func TestJavaRandomYieldsWhatJavaYields(t *testing.T) {
	r := newJavaRandom(42)
	got := []int64{
		int64(r.nextInt(100)), int64(r.nextInt(3600)), int64(r.nextInt(1_000_000_000)),
		r.nextLong(), int64(r.nextInt(20)), int64(r.nextInt(16)),
	}
	want := []int64{30, 363, 467211248, 884324181205335268, 5, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("draw %d: got %d, want %d (all: %v)", i, got[i], want[i], got)
		}
	}
}

// Subjects, timestamps and statuses of Tally's ReferenceWorkload.reference(10_000), read from a JVM.
func TestTheWorkloadIsTallysReferenceWorkload(t *testing.T) {
	work := generate(10_000, false)
	if len(work) != 1_000 {
		t.Fatalf("%d resources", len(work))
	}
	first := work[0].ephemeral[0].results[0]
	if s := first.subjects[0]; s != (objectRef{"v1", "Pod", "ns-000", "pod-0000000",
		"1ff6597e-a5b8-4963-9d9d-eb64df9f98c0"}) {
		t.Errorf("first subject %+v", s)
	}
	if first.timestamp != (timestamp{1700001310, 222859060}) {
		t.Errorf("first timestamp %+v", first.timestamp)
	}
	if first.policy != "disallow-host-namespaces" || first.rule != "check-disallow-host-namespaces" ||
		first.severity != "medium" || first.category != "Pod Security Standards (Baseline)" ||
		first.message != "validation rule 'check-disallow-host-namespaces' passed." {
		t.Errorf("first result %+v", first)
	}
	last := work[999].ephemeral[0].results[9]
	if last.subjects[0].uid != "0d05d336-9a6c-4f25-9fc5-1d7ebf0aa50e" ||
		last.subjects[0].namespace != "ns-099" || last.timestamp != (timestamp{1700002544, 634566009}) {
		t.Errorf("last result %+v", last)
	}
	out := make([]merged, len(work))
	total, s := mergeAll(allLive(), work, out)
	if total != 10_000 || s != (summary{pass: 9006, fail: 623, warn: 205, error: 75, skip: 91}) {
		t.Errorf("%d results, summary %+v", total, s)
	}
}

func TestTheEphemeralScanReplacesTheExistingOne(t *testing.T) {
	work := generate(1_000, true)
	out := make([]merged, len(work))
	_, s := mergeAll(allLive(), work, out)
	_, alone := mergeAll(allLive(), generate(1_000, false), make([]merged, len(work)))
	if s != alone {
		t.Errorf("with the existing reports %+v, without %+v", s, alone)
	}
	if s.pass == 1_000 {
		t.Errorf("every result passes: the existing reports won")
	}
	for i := range out {
		for _, r := range out[i].results {
			if r.timestamp != work[i].ephemeral[0].results[0].timestamp {
				t.Fatalf("resource %d kept %+v", i, r)
			}
		}
	}
}

func res(source, policy, rule, status string, seconds int64, nanos int32) result {
	return result{source: source, policy: policy, rule: rule, status: status,
		timestamp: timestamp{seconds, nanos}, subjects: []objectRef{{uid: "u"}}}
}

func TestLaterSecondsWinTiesKeepTheExistingAndDeadRulesAreDropped(t *testing.T) {
	live := liveRules{"p": {"a": {}, "b": {}}, "q": {"a": {}}}
	existing := &report{results: []result{
		res("kyverno", "p", "a", "pass", 100, 5),
		res("kyverno", "p", "b", "pass", 100, 5),
		res("kyverno", "q", "a", "pass", 100, 5),
	}}
	ephemeral := &report{results: []result{
		res("kyverno", "p", "a", "fail", 101, 0),   // later second: wins
		res("kyverno", "p", "b", "fail", 100, 999), // same second, later nanos: the existing stays
		res("kyverno", "q", "b", "fail", 200, 0),   // rule b of q is not live
		res("kyverno", "gone", "a", "fail", 200, 0),
		res("trivy", "q", "a", "warn", 50, 0), // another source: its own key
	}}
	m := mergeResource(live, &resource{uid: "u", existing: existing, ephemeral: []*report{ephemeral}})
	want := []result{
		res("kyverno", "p", "a", "fail", 101, 0),
		res("kyverno", "p", "b", "pass", 100, 5),
		res("kyverno", "q", "a", "pass", 100, 5),
		res("trivy", "q", "a", "warn", 50, 0),
	}
	if len(m.results) != len(want) {
		t.Fatalf("got %+v", m.results)
	}
	for i := range want {
		w, g := want[i], m.results[i]
		if g.source != w.source || g.policy != w.policy || g.rule != w.rule || g.status != w.status ||
			g.timestamp != w.timestamp {
			t.Errorf("result %d: got %+v, want %+v", i, g, w)
		}
	}
	if m.summary != (summary{pass: 2, fail: 1, warn: 1}) {
		t.Errorf("summary %+v", m.summary)
	}
}

func TestResultsSortByPolicyRuleSourceSubjectsThenTimestampText(t *testing.T) {
	a := res("kyverno", "p", "a", "pass", 9, 0)
	b := res("kyverno", "p", "a", "pass", 10, 0)
	// as text, "Seconds:10" sorts before "Seconds:9"
	if compareResults(b, a) >= 0 {
		t.Errorf("timestamps compare as numbers, not as text")
	}
	c := res("kyverno", "p", "a", "pass", 1, 0)
	c.subjects = []objectRef{{uid: "t"}}
	if compareResults(c, a) >= 0 {
		t.Errorf("subjects not compared by uid before the timestamp")
	}
	d := res("aaa", "p", "b", "pass", 1, 0)
	if compareResults(a, d) >= 0 {
		t.Errorf("rule not compared before the source")
	}
	e := res("aaa", "p", "a", "pass", 1, 0)
	if compareResults(e, a) >= 0 {
		t.Errorf("source not compared")
	}
	f := res("kyverno", "o", "z", "pass", 1, 0)
	if compareResults(f, e) >= 0 {
		t.Errorf("policy not compared first")
	}
}
