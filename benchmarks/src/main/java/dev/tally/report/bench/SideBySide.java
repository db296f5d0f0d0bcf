package dev.tally.report.bench;

import dev.tally.report.api.Change;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Summary;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The thread CPU time of full aggregation, Tally and the baseline at one size, in interleaved
 * repetitions: the Java half of {@code benchmarks/run-anchors.sh}, which runs Kyverno's merge in Go
 * between these runs so that all three see the same machine load. The work is {@link
 * FullAggregationBenchmark}'s.
 *
 * <p>Run: {@code java -Xms6g -Xmx6g -XX:+AlwaysPreTouch -cp benchmarks/target/benchmarks.jar
 * dev.tally.report.bench.SideBySide [--inputs fresh|reused|shared] [--jit-warmup 20] [--warmup 2]
 * [--reps 5] [--impl both|tally|baseline] [results]} (default 100000, fresh inputs, both). With
 * {@code --impl tally} or {@code baseline} the JVM runs that one alone, so that neither shares the
 * other's JIT profiles. First {@code --jit-warmup} repetitions of each on 10k results (so the
 * compiler has seen the code before the first timed run at any size), then {@code --warmup}
 * unmeasured and {@code --reps} measured repetitions at the size, Tally and the baseline
 * alternating (which goes first alternates too). With {@code fresh} inputs every repetition gets
 * its own never-hashed copy of the workload ({@link FreshCopy}), made before its clock starts.
 *
 * <p>Prints one line per measured repetition, {@code sample impl=tally results=100000 rep=1
 * cpu_ns=… wall_ns=…}, and one per implementation, {@code side-by-side impl=tally results=100000
 * inputs=fresh reps=5 clock=thread-cpu ns_per_result_min=… ns_per_result_median=…
 * wall_ns_per_result_min=… wall_ns_per_result_median=… pass=… fail=… warn=… error=… skip=…}: the
 * summary counts of what was aggregated, which the script compares with the Go anchor's.
 */
public final class SideBySide {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** The two implementations measured, each returning the summary of all it aggregated. */
  enum Impl {
    TALLY {
      @Override
      Summary aggregate(List<PartialReport> partials) {
        List<Summary> summaries = new ArrayList<>();
        for (Change.Create c : FullAggregationBenchmark.tally(partials).creates()) {
          summaries.add(c.report().summary());
        }
        return sum(summaries);
      }
    },
    BASELINE {
      @Override
      Summary aggregate(List<PartialReport> partials) {
        List<Summary> summaries = new ArrayList<>();
        for (BaselineAggregator.Write w : FullAggregationBenchmark.baseline(partials)) {
          summaries.add(Summary.of(w.results()));
        }
        return sum(summaries);
      }
    };

    abstract Summary aggregate(List<PartialReport> partials);

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One measured repetition. */
  record Sample(long cpuNanos, long wallNanos) {}

  /** The measured repetitions of one implementation and the summary of what it aggregated. */
  record Measured(List<Sample> samples, Summary summary) {}

  /** The parsed command line. */
  record Options(
      Inputs inputs, int jitWarmup, int warmup, int reps, int results, List<Impl> impls) {
    static Options parse(String... args) {
      Inputs inputs = Inputs.FRESH;
      List<Impl> impls = List.of(Impl.values());
      int jitWarmup = 20;
      int warmup = 2;
      int reps = 5;
      int results = 100_000;
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--inputs" -> inputs = Inputs.named(value(args, ++i));
          case "--jit-warmup" -> jitWarmup = Integer.parseInt(value(args, ++i));
          case "--warmup" -> warmup = Integer.parseInt(value(args, ++i));
          case "--reps" -> reps = Integer.parseInt(value(args, ++i));
          case "--impl" -> impls = impls(value(args, ++i));
          default -> results = Integer.parseInt(args[i]);
        }
      }
      if (jitWarmup < 0 || warmup < 0 || reps < 1) {
        throw new IllegalArgumentException("warm-ups must be at least 0 and reps at least 1");
      }
      return new Options(inputs, jitWarmup, warmup, reps, results, impls);
    }

    /** {@code tally}, {@code baseline} or {@code both}. */
    private static List<Impl> impls(String name) {
      return switch (name) {
        case "both" -> List.of(Impl.values());
        case "tally" -> List.of(Impl.TALLY);
        case "baseline" -> List.of(Impl.BASELINE);
        default ->
            throw new IllegalArgumentException(
                "--impl takes tally, baseline or both, was '" + name + "'");
      };
    }

    private static String value(String[] args, int i) {
      if (i >= args.length) {
        throw new IllegalArgumentException(args[i - 1] + " needs a value");
      }
      return args[i];
    }
  }

  private SideBySide() {}

  public static void main(String[] args) {
    Options options = Options.parse(args);
    for (var e : run(options, System.out::println).entrySet()) {
      System.out.println(summaryLine(options, e.getKey(), e.getValue()));
    }
  }

  /** Runs the repetitions, printing each measured one to {@code out}. */
  static Map<Impl, Measured> run(Options options, Consumer<String> out) {
    Inputs inputs = options.inputs();
    if (options.jitWarmup() > 0) {
      List<PartialReport> small = inputs.generate(10_000).partials();
      for (int i = 0; i < options.jitWarmup(); i++) {
        for (Impl impl : options.impls()) {
          impl.aggregate(inputs.next(small));
        }
      }
    }
    List<PartialReport> generated = inputs.generate(options.results()).partials();
    Map<Impl, List<Sample>> samples = new EnumMap<>(Impl.class);
    Map<Impl, Summary> summaries = new EnumMap<>(Impl.class);
    for (Impl impl : options.impls()) {
      samples.put(impl, new ArrayList<>());
    }
    Impl[] order = options.impls().toArray(new Impl[0]);
    for (int rep = 0; rep < options.warmup() + options.reps(); rep++) {
      for (int k = 0; k < order.length; k++) {
        Impl impl = order[(k + rep) % order.length];
        List<PartialReport> partials = inputs.next(generated);
        long wall = System.nanoTime();
        long cpu = THREADS.getCurrentThreadCpuTime();
        Summary summary = impl.aggregate(partials);
        cpu = THREADS.getCurrentThreadCpuTime() - cpu;
        wall = System.nanoTime() - wall;
        if (summary.total() != options.results()) {
          throw new IllegalStateException(
              impl.label() + " aggregated " + summary.total() + " of " + options.results());
        }
        summaries.put(impl, summary);
        if (rep >= options.warmup()) {
          samples.get(impl).add(new Sample(cpu, wall));
          out.accept(
              String.format(
                  Locale.ROOT,
                  "sample impl=%s results=%d rep=%d cpu_ns=%d wall_ns=%d",
                  impl.label(),
                  options.results(),
                  rep - options.warmup() + 1,
                  cpu,
                  wall));
        }
      }
    }
    Map<Impl, Measured> measured = new EnumMap<>(Impl.class);
    for (Impl impl : options.impls()) {
      measured.put(impl, new Measured(List.copyOf(samples.get(impl)), summaries.get(impl)));
    }
    return measured;
  }

  static String summaryLine(Options options, Impl impl, Measured measured) {
    List<Sample> samples = measured.samples();
    double[] cpu = perResult(samples, true, options.results());
    double[] wall = perResult(samples, false, options.results());
    Summary s = measured.summary();
    return String.format(
        Locale.ROOT,
        "side-by-side impl=%s results=%d inputs=%s reps=%d clock=thread-cpu"
            + " ns_per_result_min=%.1f ns_per_result_median=%.1f"
            + " wall_ns_per_result_min=%.1f wall_ns_per_result_median=%.1f"
            + " pass=%d fail=%d warn=%d error=%d skip=%d",
        impl.label(),
        options.results(),
        options.inputs().name().toLowerCase(Locale.ROOT),
        samples.size(),
        cpu[0],
        cpu[cpu.length / 2],
        wall[0],
        wall[wall.length / 2],
        s.pass(),
        s.fail(),
        s.warn(),
        s.error(),
        s.skip());
  }

  /** Sorted ns per result of the samples. */
  private static double[] perResult(List<Sample> samples, boolean cpu, int results) {
    double[] out = new double[samples.size()];
    for (int i = 0; i < out.length; i++) {
      Sample s = samples.get(i);
      out[i] = (double) (cpu ? s.cpuNanos() : s.wallNanos()) / results;
    }
    Arrays.sort(out);
    return out;
  }

  static Summary sum(List<Summary> summaries) {
    int pass = 0;
    int fail = 0;
    int warn = 0;
    int error = 0;
    int skip = 0;
    for (Summary s : summaries) {
      pass += s.pass();
      fail += s.fail();
      warn += s.warn();
      error += s.error();
      skip += s.skip();
    }
    return new Summary(pass, fail, warn, error, skip);
  }
}
