package dev.tally.report.bench;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * The CPU time of the benchmark thread for full aggregation and for upsert + flush, for comparing
 * two builds on a machine others are using: thread CPU time leaves out the time the thread waits
 * for a core and the GC's own threads, which make wall-clock JMH figures swing by 2× under load. It
 * complements JMH; it does not replace it (what the budgets name is wall-clock time).
 *
 * <p>Run: {@code java -Xms6g -Xmx6g -cp benchmarks/target/benchmarks.jar
 * dev.tally.report.bench.CpuTime full|upsert|e2e|floor [results]} (default 100000). Full
 * aggregation: 30 repetitions; upsert: 12 rounds of 5,000 upserts after the {@link UpsertBenchmark}
 * setup; e2e: {@link EndToEndBenchmark}'s decode only and end to end, 12 repetitions of each,
 * alternating (which goes first alternates too), and the ratio of their minima and of their
 * medians; floor: the cost of reading every string of fresh inputs once (each string's hash code,
 * nothing else) beside the full aggregation by Tally and by the baseline on the same inputs, 12
 * rounds in rotation after 20 on 10k results for the compiler, each on its own fresh copy. Prints
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
    if (mode.equals("floor")) {
      floor(results);
      return;
    }
    if (mode.equals("e2e")) {
      endToEnd(results);
      return;
    }
    if (mode.equals("upsert")) {
      samples = upsert(results);
      unit = "us per upsert + flush";
    } else {
      samples = full(results);
      unit = "ms per full aggregation";
    }
    double[] warm = warm(samples);
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

  private static void endToEnd(int results) {
    EndToEndBenchmark bench = new EndToEndBenchmark();
    bench.results = results;
    bench.encodeInput();
    int reps = 12;
    double[] decode = new double[reps];
    double[] whole = new double[reps];
    int written = 0;
    for (int i = 0; i < reps; i++) {
      for (int k = 0; k < 2; k++) {
        boolean decodeNow = (i + k) % 2 == 0;
        long start = THREADS.getCurrentThreadCpuTime();
        int n = decodeNow ? bench.decodeOnly().size() : bench.endToEnd().size();
        double ms = (THREADS.getCurrentThreadCpuTime() - start) / 1e6;
        written += n;
        if (decodeNow) {
          decode[i] = ms;
        } else {
          whole[i] = ms;
        }
      }
    }
    check(written);
    double[] d = warm(decode);
    double[] w = warm(whole);
    System.out.printf(
        Locale.ROOT,
        "e2e, %,d results: decode only min %.1f, median %.1f ms; end to end min %.1f, median %.1f"
            + " ms; end to end / decode only: %.2f (minima), %.2f (medians) (thread CPU time)%n",
        results,
        d[0],
        d[d.length / 2],
        w[0],
        w[w.length / 2],
        w[0] / d[0],
        w[w.length / 2] / d[d.length / 2]);
  }

  private static void floor(int results) {
    // reading every string once, then SideBySide's two aggregations (each returns what it used)
    List<ToLongFunction<List<PartialReport>>> work =
        List.of(
            CpuTime::readEveryString,
            p -> SideBySide.Impl.TALLY.aggregate(p).total(),
            p -> SideBySide.Impl.BASELINE.aggregate(p).total());
    // as SideBySide: the compiler sees all three on 10k results before the first timed run
    List<PartialReport> small = ReferenceWorkload.reference(10_000).partials();
    for (int i = 0; i < 20; i++) {
      for (ToLongFunction<List<PartialReport>> w : work) {
        w.applyAsLong(FreshCopy.of(small));
      }
    }
    List<PartialReport> generated = ReferenceWorkload.reference(results).partials();
    int reps = 12;
    double[][] ns = new double[work.size()][reps];
    long used = 0;
    for (int i = 0; i < reps; i++) {
      for (int k = 0; k < work.size(); k++) {
        int w = (i + k) % work.size();
        List<PartialReport> partials = FreshCopy.of(generated);
        long start = THREADS.getCurrentThreadCpuTime();
        used += work.get(w).applyAsLong(partials);
        ns[w][i] = (THREADS.getCurrentThreadCpuTime() - start) / (double) results;
      }
    }
    check(used == 0 ? 0 : 1);
    double[] read = warm(ns[0]);
    double[] tally = warm(ns[1]);
    double[] baseline = warm(ns[2]);
    System.out.printf(
        Locale.ROOT,
        "floor, %,d results, ns/result min / median: reading every string once %.0f / %.0f,"
            + " tally %.0f / %.0f, baseline %.0f / %.0f; read ÷ baseline %.2f / %.2f,"
            + " tally ÷ baseline %.2f / %.2f (thread CPU time)%n",
        results,
        read[0],
        read[read.length / 2],
        tally[0],
        tally[tally.length / 2],
        baseline[0],
        baseline[baseline.length / 2],
        read[0] / baseline[0],
        read[read.length / 2] / baseline[baseline.length / 2],
        tally[0] / baseline[0],
        tally[tally.length / 2] / baseline[baseline.length / 2]);
  }

  /** The hash code of every string of {@code partials}, summed: each string read once. */
  static long readEveryString(List<PartialReport> partials) {
    long h = 0;
    for (PartialReport p : partials) {
      h += p.producer().hashCode() + subject(p.subject()) + p.subjectVersion().hashCode();
      for (CoverageKey k : p.coverage()) {
        h += k.source().hashCode() + k.policy().hashCode();
      }
      for (Result r : p.results()) {
        h += r.source().hashCode() + r.policy().hashCode() + r.rule().hashCode();
        h += r.category().hashCode() + r.message().hashCode();
        for (var e : r.properties().entrySet()) {
          h += e.getKey().hashCode() + e.getValue().hashCode();
        }
        for (Subject s : r.resources()) {
          h += subject(s);
        }
      }
    }
    return h == 0 ? 1 : h;
  }

  private static long subject(Subject s) {
    return s.apiVersion().hashCode()
        + s.kind().hashCode()
        + s.namespace().hashCode()
        + s.name().hashCode()
        + s.uid().hashCode();
  }

  /** The second half of {@code samples}, after warm-up, sorted. */
  private static double[] warm(double[] samples) {
    double[] warm = Arrays.copyOfRange(samples, samples.length / 2, samples.length);
    Arrays.sort(warm);
    return warm;
  }

  /** Uses what was computed, so that none of it can be left out. */
  private static void check(int written) {
    if (written == 0) {
      throw new IllegalStateException("nothing was written: the measurement measured nothing");
    }
  }
}
