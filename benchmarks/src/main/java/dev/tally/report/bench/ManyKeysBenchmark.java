package dev.tally.report.bench;

import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.HeldCounts;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The worst case of one subject's registers (issue 32): one subject covered by {@code keys}
 * (source, policy) keys, in partial reports of {@value #KEYS_PER_PARTIAL} keys each (the most one
 * may cover by default), one per producer, each with no result ({@code resultsPerKey} 0, a coverage
 * alone, as the reproduction) or with one result per key (1, so that the partitions hold
 * them too). The aggregator is the default one (per namespace, default limits and caps).
 *
 * <ul>
 *   <li>{@code reapply}: the subject holds {@code keys} registers (applied and flushed in setup);
 *       one operation applies one producer's report again, later than anything before, every
 *       operation the next producer's, with the status of its results flipped every other time. The
 *       time is per key: one operation counts as {@value #KEYS_PER_PARTIAL}.
 *   <li>{@code rebuild}: one operation builds an empty aggregator, applies every report (a
 *       start-up, which every restart pays again), applies every report again, later and with other
 *       results, before any flush (each producer publishing again while the start-up is not yet
 *       written), and flushes. The time is per operation: divide it by twice {@code keys} for the
 *       time per key.
 * </ul>
 *
 * <p>The reports are built in setup, outside the measured time; their strings are the same objects
 * every time (their hash codes cached), which this benchmark, about the structures that find a
 * subject's registers, does not need to avoid.
 */
@BenchmarkMode(Mode.AverageTime)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {BenchHeap.MIN, BenchHeap.MAX, BenchHeap.PRE_TOUCH})
public class ManyKeysBenchmark {
  /** The keys of one partial report: {@code InputCaps.defaults().maxCoveragePerPartial()}. */
  static final int KEYS_PER_PARTIAL = 5_000;

  static final Subject SUBJECT =
      Subject.of("v1", "Pod", "tenant", "many-keys", "3f1c2a7e-0000-4000-8000-000000000032");

  /** Round 1 at this time plus the producer's number; round 2 a thousand seconds later. */
  static final long ROUND_1_SECONDS = 1_800_000_000L;

  /** The reports of one subject at one size. */
  public abstract static class Reports {
    /** Each producer's report of round 1, then of round 2 (later, each result's status flipped). */
    List<PartialReport> first = List.of();

    List<PartialReport> second = List.of();

    /**
     * Makes the reports of {@code keys} keys in all (a multiple of {@link #KEYS_PER_PARTIAL}), with
     * {@code resultsPerKey} results each.
     */
    void generate(int keys, int resultsPerKey) {
      int producers = keys / KEYS_PER_PARTIAL;
      if (producers * KEYS_PER_PARTIAL != keys) {
        throw new IllegalArgumentException("keys must be a multiple of " + KEYS_PER_PARTIAL);
      }
      List<PartialReport> one = new ArrayList<>(producers);
      List<PartialReport> two = new ArrayList<>(producers);
      for (int p = 0; p < producers; p++) {
        one.add(report(p, resultsPerKey, false, Timestamp.ofSeconds(ROUND_1_SECONDS + p)));
        two.add(report(p, resultsPerKey, true, Timestamp.ofSeconds(ROUND_1_SECONDS + 1_000 + p)));
      }
      first = List.copyOf(one);
      second = List.copyOf(two);
    }
  }

  /**
   * Producer {@code p}'s report: keys {@code [p × 5,000, (p + 1) × 5,000)}, each with {@code
   * results} results (0 or 1), passing, or failing when {@code flipped}.
   */
  static PartialReport report(int p, int results, boolean flipped, Timestamp at) {
    Set<CoverageKey> coverage = new LinkedHashSet<>();
    List<Result> out = new ArrayList<>(results * KEYS_PER_PARTIAL);
    for (int k = p * KEYS_PER_PARTIAL; k < (p + 1) * KEYS_PER_PARTIAL; k++) {
      CoverageKey key = CoverageKey.of("scanner-" + (k % 4), "policy-" + k);
      coverage.add(key);
      for (int i = 0; i < results; i++) {
        out.add(
            Result.builder()
                .source(key.source())
                .policy(key.policy())
                .rule("rule-" + i)
                .status(flipped ? ResultStatus.FAIL : ResultStatus.PASS)
                .message("evaluated " + key.policy())
                .build());
      }
    }
    return PartialReport.builder()
        .producer("producer-" + p)
        .subject(SUBJECT)
        .coverage(coverage)
        .results(out)
        .observedAt(at)
        .build();
  }

  /** An aggregator holding the subject's registers, and the next report to apply again. */
  @State(Scope.Benchmark)
  public static class Held extends Reports {
    /** The keys in all: a multiple of {@link #KEYS_PER_PARTIAL}. */
    @Param({"5000", "20000", "80000"})
    public int keys;

    /** Results per key: 0 (a coverage alone) or 1. */
    @Param({"0", "1"})
    public int resultsPerKey;

    ReportAggregator aggregator = ReportAggregator.builder().build();
    long ops;
    PartialReport next = report(0, 0, false, Timestamp.ofSeconds(ROUND_1_SECONDS));

    @Setup(Level.Trial)
    public void load() {
      generate(keys, resultsPerKey);
      aggregator = ReportAggregator.builder().build();
      first.forEach(aggregator::apply);
      aggregator.flush();
      ops = 0;
    }

    /** Outside the measured time: the next producer's report, later than every one before. */
    @Setup(Level.Invocation)
    public void nextReport() {
      long op = ops++;
      int producer = (int) (op % first.size());
      boolean flip = (op / first.size()) % 2 == 0;
      PartialReport report = (flip ? second : first).get(producer);
      next = report.withObservedAt(Timestamp.ofSeconds(ROUND_1_SECONDS + 2_000 + op));
    }
  }

  /** The reports of one subject, applied into a new aggregator by every operation. */
  @State(Scope.Benchmark)
  public static class Fresh extends Reports {
    /** The keys in all: a multiple of {@link #KEYS_PER_PARTIAL}. */
    @Param({"5000", "20000", "80000"})
    public int keys;

    /** Results per key: 0 (a coverage alone) or 1. */
    @Param({"0", "1"})
    public int resultsPerKey;

    @Setup(Level.Trial)
    public void setUp() {
      generate(keys, resultsPerKey);
    }
  }

  /** One producer's report of 5,000 keys again: ns per key. */
  @Benchmark
  @OperationsPerInvocation(KEYS_PER_PARTIAL)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public HeldCounts reapply(Held state) {
    state.aggregator.apply(state.next);
    return state.aggregator.held();
  }

  /** A start-up with every report, every report again, one flush: ms per operation. */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public ChangeSet rebuild(Fresh state) {
    ReportAggregator aggregator = ReportAggregator.builder().build();
    state.first.forEach(aggregator::apply);
    state.second.forEach(aggregator::apply);
    return aggregator.flush();
  }
}
