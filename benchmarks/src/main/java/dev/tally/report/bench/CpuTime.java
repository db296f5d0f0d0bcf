package dev.tally.report.bench;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The CPU time of the benchmark thread for full aggregation and for upsert + flush, for comparing
 * two builds on a machine others are using: thread CPU time leaves out the time the thread waits
 * for a core and the GC's own threads, which make wall-clock JMH figures swing by 2× under load. It
 * complements JMH; it does not replace it (what the budgets name is wall-clock time).
 *
 * <p>Run: {@code java -Xms6g -Xmx6g -cp benchmarks/target/benchmarks.jar
 * dev.tally.report.bench.CpuTime full|upsert [results]} (default 100000). Full aggregation: 30
 * repetitions; upsert: 12 rounds of 5,000 upserts after the {@link UpsertBenchmark} setup. Prints
 * the minimum and median of the second half, after warm-up.
 */
public final class CpuTime {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private CpuTime() {}

  public static void main(String[] args) {
    String mode = args.length > 0 ? args[0] : "full";
    int results = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    double[] samples;
    String unit;
    if (mode.equals("upsert")) {
      samples = upsert(results);
      unit = "us per upsert + flush";
    } else {
      samples = full(results);
      unit = "ms per full aggregation";
    }
    double[] warm = Arrays.copyOfRange(samples, samples.length / 2, samples.length);
    Arrays.sort(warm);
    System.out.printf(
        Locale.ROOT,
        "%s, %,d results: min %.1f, median %.1f %s (thread CPU time)%n",
        mode,
        results,
        warm[0],
        warm[warm.length / 2],
        unit);
  }

  private static double[] full(int results) {
    List<PartialReport> partials = ReferenceWorkload.reference(results).partials();
    double[] ms = new double[30];
    int written = 0;
    for (int i = 0; i < ms.length; i++) {
      long start = THREADS.getCurrentThreadCpuTime();
      ReportAggregator aggregator =
          ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
      for (PartialReport p : partials) {
        aggregator.apply(p);
      }
      written += aggregator.flush().changes().size();
      ms[i] = (THREADS.getCurrentThreadCpuTime() - start) / 1e6;
    }
    check(written);
    return ms;
  }

  private static double[] upsert(int results) {
    var state = new UpsertBenchmark.TallyState();
    state.results = results;
    state.setUp();
    int ops = 5_000;
    double[] us = new double[12];
    int written = 0;
    for (int round = 0; round < us.length; round++) {
      long start = THREADS.getCurrentThreadCpuTime();
      for (int i = 0; i < ops; i++) {
        state.aggregator.apply(state.nextRescan());
        written += state.aggregator.flush().changes().size();
      }
      us[round] = (THREADS.getCurrentThreadCpuTime() - start) / 1e3 / ops;
    }
    check(written);
    return us;
  }

  /** Uses what was computed, so that none of it can be left out. */
  private static void check(int written) {
    if (written == 0) {
      throw new IllegalStateException("nothing was written: the measurement measured nothing");
    }
  }
}
