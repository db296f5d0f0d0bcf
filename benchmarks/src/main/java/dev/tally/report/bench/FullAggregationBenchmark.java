package dev.tally.report.bench;

import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import java.util.List;
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
 * Budget: full aggregation of the 100k-result reference workload into canonical aggregates in at
 * most 10 ms, at least 10 times faster than the baseline. One operation builds an empty
 * per-namespace aggregator, applies every partial report and flushes: the cost of a restart, or of
 * a resync from the partial reports in the cluster. Tally at 10k, 100k and 1M results (it should
 * grow linearly); the baseline at 10k and 100k (one of its operations at 1M takes seconds).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms6g", "-Xmx6g"})
public class FullAggregationBenchmark {

  /** The reference workload at each size Tally is measured at. */
  @State(Scope.Benchmark)
  public static class Workload {
    @Param({"10000", "100000", "1000000"})
    public int results;

    List<PartialReport> partials = List.of();

    @Setup
    public void generate() {
      partials = ReferenceWorkload.reference(results).partials();
    }
  }

  /** The reference workload at the sizes the baseline is measured at. */
  @State(Scope.Benchmark)
  public static class BaselineWorkload {
    @Param({"10000", "100000"})
    public int baselineResults;

    List<PartialReport> partials = List.of();

    @Setup
    public void generate() {
      partials = ReferenceWorkload.reference(baselineResults).partials();
    }
  }

  /** Tally: apply every partial into an empty aggregator, then flush the canonical aggregates. */
  @Benchmark
  public ChangeSet tally(Workload workload) {
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
    for (PartialReport p : workload.partials) {
      aggregator.apply(p);
    }
    return aggregator.flush();
  }

  /** The baseline: the same partial reports into plain maps, every namespace rebuilt on flush. */
  @Benchmark
  public List<BaselineAggregator.Write> baseline(BaselineWorkload workload) {
    var baseline = new BaselineAggregator();
    for (PartialReport p : workload.partials) {
      baseline.apply(p);
    }
    return baseline.flush();
  }
}
