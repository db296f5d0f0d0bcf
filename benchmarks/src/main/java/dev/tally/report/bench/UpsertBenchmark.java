package dev.tally.report.bench;

import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
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
 * Budget: one partial report (10 results) upserted into the state of the reference workload, and
 * its flush, in at most 20 µs, at least 1000 times faster than the baseline. Every operation is a
 * real change: it rescans one of {@value #RING} subjects spread over all namespaces, alternately
 * with one result flipped and with the original results, at a later observation time than any
 * before, so each flush writes exactly one update (of a 1000-result namespace report). Building the
 * {@link PartialReport} value (validation of 10 results) is part of the operation, as it is for a
 * caller. Tally at 10k, 100k and 1M results (it should stay flat); the baseline, which rebuilds
 * every namespace on each flush, at 10k and 100k.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {BenchHeap.MIN, BenchHeap.MAX, BenchHeap.PRE_TOUCH})
public class UpsertBenchmark {
  static final int RING = 1024;

  /** A loaded aggregator and the rescans to feed it. */
  public abstract static class Loaded {
    ReferenceWorkload workload = ReferenceWorkload.reference(10);
    int[] subjects = new int[0];
    List<List<Result>> flipped = List.of();
    List<List<Result>> original = List.of();
    long ops;

    void load(int results) {
      workload = ReferenceWorkload.reference(results);
      int n = workload.partials().size();
      int ring = Math.min(RING, n);
      subjects = new int[ring];
      List<List<Result>> flips = new ArrayList<>(ring);
      List<List<Result>> originals = new ArrayList<>(ring);
      for (int i = 0; i < ring; i++) {
        subjects[i] = (int) ((long) i * n / ring);
        flips.add(workload.flippedResults(subjects[i], i));
        originals.add(workload.partials().get(subjects[i]).results());
      }
      flipped = List.copyOf(flips);
      original = List.copyOf(originals);
    }

    /** The next rescan: later than every earlier one, and different from the last. */
    PartialReport nextRescan() {
      long op = ops++;
      int slot = (int) (op % subjects.length);
      boolean flip = (op / subjects.length) % 2 == 0;
      Timestamp at =
          new Timestamp(
              ReferenceWorkload.RESCAN_SECONDS + op / 1_000_000_000L, (int) (op % 1_000_000_000L));
      return workload.rescan(subjects[slot], flip ? flipped.get(slot) : original.get(slot), at);
    }
  }

  /** Tally's aggregator loaded with the reference workload at each size, flushed. */
  @State(Scope.Benchmark)
  public static class TallyState extends Loaded {
    @Param({"10000", "100000", "1000000"})
    public int results;

    ReportAggregator aggregator = ReportAggregator.builder().build();

    @Setup
    public void setUp() {
      load(results);
      aggregator = ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
      workload.partials().forEach(aggregator::apply);
      aggregator.flush();
    }
  }

  /** The baseline loaded with the reference workload, flushed. */
  @State(Scope.Benchmark)
  public static class BaselineState extends Loaded {
    @Param({"10000", "100000"})
    public int baselineResults;

    BaselineAggregator baseline = new BaselineAggregator();

    @Setup
    public void setUp() {
      load(baselineResults);
      baseline = new BaselineAggregator();
      workload.partials().forEach(baseline::apply);
      baseline.flush();
    }
  }

  @Benchmark
  public ChangeSet tally(TallyState state) {
    state.aggregator.apply(state.nextRescan());
    return state.aggregator.flush();
  }

  @Benchmark
  public List<BaselineAggregator.Write> baseline(BaselineState state) {
    state.baseline.apply(state.nextRescan());
    return state.baseline.flush();
  }
}
