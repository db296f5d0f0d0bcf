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
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Full aggregation of the reference workload: one operation builds an empty per-namespace
 * aggregator, applies every partial report and flushes, the cost of a restart or of a resync from
 * the partial reports in the cluster. The baseline does the same into plain maps. Both at 10k, 100k
 * and 1M results (the scaling), each with the three {@link Inputs}: {@code fresh} (a new,
 * never-hashed copy for every invocation, made outside the measured time, as a decoder hands them
 * over), {@code reused} (the same decoded objects every time, as measured before issue 10) and
 * {@code shared} (interned values).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {BenchHeap.MIN, BenchHeap.MAX, BenchHeap.PRE_TOUCH})
public class FullAggregationBenchmark {

  /** The reference workload at each size, handed over as {@link #inputs} says. */
  @State(Scope.Benchmark)
  public static class Workload {
    @Param({"10000", "100000", "1000000"})
    public int results;

    /** {@code fresh}, {@code reused} or {@code shared}: see {@link Inputs}. */
    @Param({"fresh", "reused", "shared"})
    public String inputs;

    Inputs mode = Inputs.FRESH;
    List<PartialReport> generated = List.of();

    /** What the next invocation aggregates. */
    List<PartialReport> partials = List.of();

    @Setup(Level.Trial)
    public void generate() {
      mode = Inputs.named(inputs);
      generated = mode.generate(results).partials();
      partials = generated;
    }

    /** Outside the measured time: a fresh copy for {@code fresh}, the same list otherwise. */
    @Setup(Level.Invocation)
    public void nextInvocation() {
      partials = mode.next(generated);
    }
  }

  /** Tally: apply every partial into an empty aggregator, then flush the canonical aggregates. */
  @Benchmark
  public ChangeSet tally(Workload workload) {
    return tally(workload.partials);
  }

  /** The baseline: the same partial reports into plain maps, every namespace rebuilt on flush. */
  @Benchmark
  public List<BaselineAggregator.Write> baseline(Workload workload) {
    return baseline(workload.partials);
  }

  static ChangeSet tally(List<PartialReport> partials) {
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
    for (PartialReport p : partials) {
      aggregator.apply(p);
    }
    return aggregator.flush();
  }

  static List<BaselineAggregator.Write> baseline(List<PartialReport> partials) {
    var baseline = new BaselineAggregator();
    for (PartialReport p : partials) {
      baseline.apply(p);
    }
    return baseline.flush();
  }
}
