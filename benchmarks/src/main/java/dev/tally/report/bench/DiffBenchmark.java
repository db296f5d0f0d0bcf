package dev.tally.report.bench;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportRef;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Budget: the diff of desired against observed aggregates of the reference workload, with 1% of the
 * reports changed, in at most 2 ms. The observed reports are what the aggregator published for the
 * initial scan, with their real content hashes; then rescans change 1% of the reports (one result
 * each), and one operation is {@code aggregator.resync(observed)}, as on a restart or after a
 * conflict. The baseline compares the same reports by content, report by report, as code without a
 * content hash must.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {BenchHeap.MIN, BenchHeap.MAX, BenchHeap.PRE_TOUCH})
public class DiffBenchmark {

  @Param({"namespace", "subject"})
  public String grouping;

  @Param("100000")
  public int results;

  private ReportAggregator aggregator = ReportAggregator.builder().build();
  private List<AggregateReport> observed = List.of();
  private List<AggregateReport> desired = List.of();
  private Map<ReportRef, AggregateReport> observedByRef = Map.of();

  @Setup
  public void load() {
    var scenario =
        DiffScenario.onePercentChanged(
            ReferenceWorkload.reference(results), Groupings.named(grouping));
    aggregator = scenario.aggregator();
    observed = scenario.observed();
    desired = aggregator.aggregates();
    Map<ReportRef, AggregateReport> byRef = new HashMap<>();
    observed.forEach(r -> byRef.put(r.ref(), r));
    observedByRef = byRef;
  }

  /** Tally: diff by content hash. */
  @Benchmark
  public ChangeSet tally() {
    return aggregator.resync(observed);
  }

  /** The baseline: look each desired report up among the observed ones and compare contents. */
  @Benchmark
  public int baseline() {
    int writes = 0;
    for (AggregateReport d : desired) {
      AggregateReport o = observedByRef.get(d.ref());
      if (o == null || !o.summary().equals(d.summary()) || !o.results().equals(d.results())) {
        writes++;
      }
    }
    return writes + Math.max(0, observed.size() - desired.size());
  }
}
