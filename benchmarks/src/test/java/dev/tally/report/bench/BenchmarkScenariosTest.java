package dev.tally.report.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.EncodedSize;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.Result;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The benchmarks measure what they claim: each operation does the work its budget names, and the
 * baseline computes the same aggregates as Tally. Run at 10k results so the build stays fast.
 */
class BenchmarkScenariosTest {

  @Test
  void fullAggregationOfTallyAndBaselineGiveTheSameResultsPerNamespace() {
    var bench = new FullAggregationBenchmark();
    var workload = new FullAggregationBenchmark.Workload();
    workload.results = 10_000;
    workload.inputs = "fresh";
    workload.generate();
    workload.nextInvocation();
    var tally = bench.tally(workload);
    workload.nextInvocation();
    var baseline = bench.baseline(workload);
    assertThat(tally.creates()).hasSize(100);
    assertThat(baseline).hasSize(100);

    Map<String, List<Result>> fromTally = new HashMap<>();
    for (Change.Create c : tally.creates()) {
      fromTally
          .computeIfAbsent(c.ref().namespace(), k -> new ArrayList<>())
          .addAll(c.report().results());
      assertThat(c.report().summary().total()).isEqualTo(c.report().results().size());
    }
    Comparator<Result> order = BaselineAggregator.ORDER;
    for (var w : baseline) {
      List<Result> tallyResults = new ArrayList<>(fromTally.get(w.namespace()));
      tallyResults.sort(order);
      assertThat(tallyResults).isEqualTo(w.results());
    }
  }

  @Test
  void everyUpsertOperationWritesExactlyOneUpdateEvenAfterTheRingWraps() {
    var bench = new UpsertBenchmark();
    var tallyState = new UpsertBenchmark.TallyState();
    tallyState.results = 10_000;
    tallyState.setUp();
    var baselineState = new UpsertBenchmark.BaselineState();
    baselineState.baselineResults = 10_000;
    baselineState.setUp();
    for (int i = 0; i < 2_100; i++) {
      var changes = bench.tally(tallyState);
      assertThat(changes.updates()).as("operation %d", i).hasSize(1);
      assertThat(changes.size()).isEqualTo(1);
    }
    for (int i = 0; i < 50; i++) {
      assertThat(bench.baseline(baselineState))
          .singleElement()
          .extracting(BaselineAggregator.Write::verb)
          .isEqualTo("update");
    }
  }

  @Test
  void theDiffFindsExactlyTheChangedOnePercent() {
    for (String grouping : List.of("namespace", "subject", "policy")) {
      var scenario =
          DiffScenario.onePercentChanged(
              ReferenceWorkload.reference(10_000), Groupings.named(grouping));
      var changes = scenario.aggregator().resync(scenario.observed());
      assertThat(changes.updates()).as(grouping).hasSize(scenario.changed());
      assertThat(changes.size()).as(grouping).isEqualTo(scenario.changed());
      assertThat(scenario.changed()).isEqualTo(Math.max(1, scenario.observed().size() / 100));
    }
  }

  @Test
  void theDiffBenchmarkMethodsAgreeOnTheNumberOfWrites() {
    var bench = new DiffBenchmark();
    bench.grouping = "subject";
    bench.results = 10_000;
    bench.load();
    assertThat(bench.tally().size()).isEqualTo(10).isEqualTo(bench.baseline());
  }

  @Test
  void splitPartitionsRespectBothLimits() {
    var workload =
        ReferenceWorkload.generate(
            WorkloadShape.reference(10_000).inOneNamespace(), ReferenceWorkload.SEED);
    for (String limit : List.of("maxResults", "maxBytes")) {
      var limits = SplitBenchmark.limits(limit);
      var aggregator =
          dev.tally.report.api.ReportAggregator.builder()
              .grouping(Grouping.perNamespace())
              .limits(limits)
              .build();
      workload.partials().forEach(aggregator::apply);
      var creates = aggregator.flush().creates();
      assertThat(creates.size()).as(limit).isGreaterThanOrEqualTo(10);
      int total = 0;
      for (Change.Create c : creates) {
        AggregateReport r = c.report();
        assertThat(r.results().size()).isLessThanOrEqualTo(limits.maxResults());
        assertThat(EncodedSize.of(r)).isLessThanOrEqualTo(limits.maxBytes());
        total += r.results().size();
      }
      assertThat(total).isEqualTo(10_000);
      var baselineSorted =
          workload.partials().stream()
              .flatMap(p -> p.results().stream())
              .sorted(BaselineAggregator.ORDER)
              .toList();
      assertThat(SplitBenchmark.chunk(baselineSorted, limits))
          .allSatisfy(chunk -> assertThat(chunk.size()).isLessThanOrEqualTo(limits.maxResults()))
          .hasSizeGreaterThanOrEqualTo(10);
    }
  }

  @Test
  void manyKeysReappliesReplaceEveryKeyOfOneProducerAndTheRebuildHoldsEveryKey() {
    var bench = new ManyKeysBenchmark();
    for (int resultsPerKey = 0; resultsPerKey <= 1; resultsPerKey++) {
      var held = new ManyKeysBenchmark.Held();
      held.keys = 10_000;
      held.resultsPerKey = resultsPerKey;
      held.load();
      // round 2 (failing) of producer 0, then 1, then round 1 (passing) of 0, then 1
      int[] failingAfter = {5_000, 10_000, 5_000, 0};
      for (int op = 0; op < failingAfter.length; op++) {
        held.nextReport();
        var counts = bench.reapply(held);
        assertThat(counts.registers()).as("registers after op %d", op).isEqualTo(10_000);
        assertThat(counts.results()).isEqualTo(10_000L * resultsPerKey);
        held.aggregator.flush();
        int failing = held.aggregator.aggregates().stream().mapToInt(a -> a.summary().fail()).sum();
        assertThat(failing)
            .as("failing after op %d", op)
            .isEqualTo(failingAfter[op] * resultsPerKey);
      }

      var fresh = new ManyKeysBenchmark.Fresh();
      fresh.keys = 10_000;
      fresh.resultsPerKey = resultsPerKey;
      fresh.setUp();
      var changes = bench.rebuild(fresh);
      assertThat(changes.updates()).isEmpty();
      assertThat(changes.creates().stream().mapToInt(c -> c.report().summary().fail()).sum())
          .as("every key's result, as round 2 states it")
          .isEqualTo(10_000 * resultsPerKey);
      if (resultsPerKey == 0) {
        assertThat(changes.creates()).isEmpty();
      } else {
        // split under the default 1,000 results per object
        assertThat(changes.creates()).hasSizeGreaterThanOrEqualTo(10);
        assertThat(changes.creates())
            .allSatisfy(c -> assertThat(c.report().results()).hasSizeLessThanOrEqualTo(1_000));
      }
    }
  }
}
