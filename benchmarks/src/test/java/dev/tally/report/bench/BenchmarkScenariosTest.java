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
}
