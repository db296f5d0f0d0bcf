package dev.tally.report.merge.kyverno;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.generators.SourceDSL;

/**
 * Tally against Kyverno on Kyverno's own input: for any sequence of intermediate reports (admission
 * and background scans of a few Pods, each labelled with the policies it evaluated), the reports
 * Tally aggregates equal the reference merge with coverage (per resource and policy, the latest
 * report that evaluated the policy says what its results are), and differ from Kyverno's merge (a
 * union keyed by source, policy and rule in which later seconds win and ties keep the old result)
 * exactly where Kyverno keeps a stale result: one that a later report evaluating the same policy no
 * longer produced.
 */
class KyvernoMergeProperties {
  /** Seeds are read long after the scenario's times: no time is in the future. */
  static final dev.tally.report.api.Timestamp NOW =
      dev.tally.report.api.Timestamp.ofSeconds(4_000_000_000L);

  static final dev.tally.report.merge.publish.ClockRule CLOCK =
      dev.tally.report.merge.publish.ClockRule.allowing(
          dev.tally.report.merge.publish.ClockRule.DEFAULT_MAX_SKEW);

  private static final long SEED = Long.getLong("tally.seed", 0x7a11_5eedL);
  private static final int EXAMPLES = Integer.getInteger("tally.examples", 1000);
  private static final long T0 = 1_767_225_600L;
  private static final List<String> POLICIES = List.of("require-labels", "disallow-latest", "pss");
  private static final List<String> RULES = List.of("check", "autogen-check");

  /** A result as compared: (subject uid, policy, rule) to status and message. */
  record Key(String uid, String policy, String rule) implements Comparable<Key> {
    @Override
    public int compareTo(Key o) {
      return toString().compareTo(o.toString());
    }
  }

  /** An intermediate report as generated, with what it evaluated. */
  record Scan(String uid, long seconds, Set<String> labelled, List<Result> results) {
    Set<String> evaluated() {
      Set<String> all = new TreeSet<>(labelled);
      results.forEach(r -> all.add(r.policy()));
      return all;
    }
  }

  @Test
  void tallyIsTheMergeWithCoverageAndDiffersFromKyvernoExactlyInItsStaleResults() {
    AtomicLong staleSeen = new AtomicLong();
    QuickTheory.qt()
        .withFixedSeed(SEED)
        .withExamples(EXAMPLES)
        .forAll(SourceDSL.longs().all())
        .checkAssert(
            seed -> {
              List<Scan> scans = scans(new Random(seed));
              ReportAggregator tally =
                  ReportAggregator.builder().grouping(Grouping.perSubject()).build();
              for (Scan s : scans) {
                if (KyvernoMapping.map(intermediate(s))
                    instanceof KyvernoMapping.Outcome.Ready ready) {
                  tally.apply(ready.partial());
                }
              }
              tally.flush();
              Map<Key, String> tallys = tallyResults(tally.aggregates());
              Map<Key, String> reference = referenceMerge(scans);
              Map<Key, String> kyverno = kyvernoMerge(scans);
              Set<Key> stale = staleInKyverno(scans);
              staleSeen.addAndGet(stale.size());

              assertThat(tallys).as("Tally is the merge with coverage").isEqualTo(reference);
              Map<Key, String> extra = new TreeMap<>(kyverno);
              reference.forEach(
                  (k, v) -> {
                    assertThat(kyverno).as("Kyverno agrees on what is current").containsEntry(k, v);
                    extra.remove(k);
                  });
              assertThat(extra.keySet())
                  .as("what Kyverno keeps beyond Tally is exactly its stale results")
                  .isEqualTo(stale);
            });
    assertThat(staleSeen.get()).as("the examples include stale results").isPositive();
  }

  /**
   * Seeding from the per-resource reports loses nothing: for any sequence of intermediate reports
   * and any point in it, an aggregator seeded from the reports written after the prefix (as
   * Kyverno's readers see them: no content hash) and then given the rest aggregates exactly what
   * one given the whole sequence does, names, labels and content hashes included.
   */
  @Test
  void seedingFromThePerResourceReportsOfAPrefixThenTheRestEqualsTheWholeSequence() {
    AtomicLong seededResults = new AtomicLong();
    QuickTheory.qt()
        .withFixedSeed(SEED)
        .withExamples(EXAMPLES)
        .forAll(SourceDSL.longs().all())
        .checkAssert(
            seed -> {
              Random random = new Random(seed);
              List<Scan> scans = scans(random);
              int cut = random.nextInt(scans.size() + 1);
              ReportAggregator whole = kyvernoLayout();
              ReportAggregator prefix = kyvernoLayout();
              for (int i = 0; i < scans.size(); i++) {
                if (KyvernoMapping.map(intermediate(scans.get(i)))
                    instanceof KyvernoMapping.Outcome.Ready ready) {
                  whole.apply(ready.partial());
                  if (i < cut) {
                    prefix.apply(ready.partial());
                  }
                }
              }
              ReportAggregator rebuilt = kyvernoLayout();
              for (AggregateReport written : prefix.aggregates()) {
                seededResults.addAndGet(written.results().size());
                KyvernoMapping.seed(written.withContentHash(""), CLOCK, NOW)
                    .forEach(rebuilt::apply);
              }
              for (Scan s : scans.subList(cut, scans.size())) {
                if (KyvernoMapping.map(intermediate(s))
                    instanceof KyvernoMapping.Outcome.Ready ready) {
                  rebuilt.apply(ready.partial());
                }
              }
              assertThat(rebuilt.aggregates()).isEqualTo(whole.aggregates());
            });
    assertThat(seededResults.get()).as("the examples seed results").isPositive();
  }

  private static ReportAggregator kyvernoLayout() {
    return ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build();
  }

  /** 1 to 12 reports about 1 to 3 Pods, one second apart, each evaluating some policies. */
  private static List<Scan> scans(Random r) {
    int pods = 1 + r.nextInt(3);
    int n = 1 + r.nextInt(12);
    List<Scan> scans = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String uid = "uid-" + r.nextInt(pods);
      Set<String> labelled = new TreeSet<>();
      boolean withLabels = r.nextInt(5) != 0; // one in five without policy labels
      for (String p : POLICIES) {
        if (r.nextBoolean()) {
          labelled.add(p);
        }
      }
      List<Result> results = new ArrayList<>();
      for (String p : POLICIES) {
        if (!labelled.contains(p) && (withLabels || r.nextInt(3) != 0)) {
          continue;
        }
        for (String rule : RULES) {
          if (r.nextInt(3) != 0) {
            results.add(
                Result.builder()
                    .source("kyverno")
                    .policy(p)
                    .rule(rule)
                    .status(r.nextBoolean() ? ResultStatus.PASS : ResultStatus.FAIL)
                    .message("scan " + i)
                    .timestamp(Timestamp.ofSeconds(T0 + i))
                    .build());
          }
        }
      }
      scans.add(new Scan(uid, T0 + i, withLabels ? labelled : Set.of(), results));
    }
    return scans;
  }

  private static IntermediateReport intermediate(Scan s) {
    Map<String, String> labels = new HashMap<>();
    labels.put("app.kubernetes.io/managed-by", "kyverno");
    labels.put(KyvernoMapping.SOURCE_LABEL, s.seconds() % 2 == 0 ? "admission" : "background-scan");
    labels.put(KyvernoMapping.GROUP_LABEL, "");
    labels.put(KyvernoMapping.VERSION_LABEL, "v1");
    labels.put(KyvernoMapping.KIND_LABEL, "Pod");
    labels.put(KyvernoMapping.UID_LABEL, s.uid());
    s.labelled().forEach(p -> labels.put("cpol.kyverno.io/" + p, "1"));
    return new IntermediateReport(
        "shop",
        s.uid() + "-" + s.seconds(),
        labels,
        Map.of(
            KyvernoMapping.NAMESPACE_ANNOTATION,
            "shop",
            KyvernoMapping.NAME_ANNOTATION,
            "pod-" + s.uid()),
        Optional.of(s.uid()),
        Optional.of(Timestamp.ofSeconds(s.seconds())),
        s.results());
  }

  private static Map<Key, String> tallyResults(List<AggregateReport> aggregates) {
    Map<Key, String> out = new TreeMap<>();
    for (AggregateReport a : aggregates) {
      String uid = a.scope().orElseThrow().uid();
      for (Result r : a.results()) {
        out.put(new Key(uid, r.policy(), r.rule()), r.status() + " " + r.message());
      }
    }
    return out;
  }

  /** Per resource and policy, the results of the latest report that evaluated the policy. */
  private static Map<Key, String> referenceMerge(List<Scan> scans) {
    Map<String, Scan> latest = new HashMap<>(); // uid/policy -> scan
    for (Scan s : scans) {
      for (String p : s.evaluated()) {
        latest.put(s.uid() + "/" + p, s);
      }
    }
    Map<Key, String> out = new TreeMap<>();
    latest.forEach(
        (uidPolicy, s) -> {
          String policy = uidPolicy.substring(uidPolicy.indexOf('/') + 1);
          for (Result r : s.results()) {
            if (r.policy().equals(policy)) {
              out.put(new Key(s.uid(), policy, r.rule()), r.status() + " " + r.message());
            }
          }
        });
    return out;
  }

  /**
   * Kyverno's merge, as its reports controller does it: a union keyed by source, policy and rule; a
   * result replaces the one held only if its timestamp has more seconds; nothing is removed.
   */
  private static Map<Key, String> kyvernoMerge(List<Scan> scans) {
    Map<Key, Result> held = new TreeMap<>();
    for (Scan s : scans) {
      for (Result r : s.results()) {
        Key k = new Key(s.uid(), r.policy(), r.rule());
        Result old = held.get(k);
        if (old == null
            || r.timestamp().orElseThrow().seconds() > old.timestamp().orElseThrow().seconds()) {
          held.put(k, r);
        }
      }
    }
    Map<Key, String> out = new TreeMap<>();
    held.forEach((k, r) -> out.put(k, r.status() + " " + r.message()));
    return out;
  }

  /**
   * The results Kyverno keeps although they are stale: written by one report, and a later report
   * about the same resource evaluated the same policy without producing that (policy, rule).
   */
  private static Set<Key> staleInKyverno(List<Scan> scans) {
    Map<Key, Integer> writtenBy = new TreeMap<>();
    for (int i = 0; i < scans.size(); i++) {
      for (Result r : scans.get(i).results()) {
        writtenBy.put(new Key(scans.get(i).uid(), r.policy(), r.rule()), i);
      }
    }
    Set<Key> stale = new TreeSet<>();
    writtenBy.forEach(
        (k, i) -> {
          for (int j = i + 1; j < scans.size(); j++) {
            Scan later = scans.get(j);
            if (later.uid().equals(k.uid()) && later.evaluated().contains(k.policy())) {
              stale.add(k); // it evaluated the policy, and did not write k (else k's writer is j)
              return;
            }
          }
        });
    return stale;
  }
}
