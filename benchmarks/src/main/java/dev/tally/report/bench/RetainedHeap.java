package dev.tally.report.bench;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import java.io.PrintStream;
import java.util.Locale;
import org.openjdk.jol.info.GraphLayout;

/**
 * Budget (issue 10): retained heap of the aggregator state at most 100 bytes per result. Loads the
 * reference workload into a per-namespace aggregator, flushes (so the published state is counted
 * too), and walks everything reachable from the aggregator with JOL's {@link GraphLayout}:
 * registers, indexes, the results and every string they hold. The baseline is measured the same
 * way.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.tally.report.bench.RetainedHeap
 * [results...]} (default 100000). Prints a Markdown table. With {@code --footprint N} it prints
 * JOL's class histogram of the aggregator state at N results instead.
 */
public final class RetainedHeap {
  private RetainedHeap() {}

  /** Bytes per result retained by what {@code root} reaches. */
  static double bytesPerResult(Object root, long results) {
    return (double) GraphLayout.parseInstance(root).totalSize() / results;
  }

  /** A per-namespace aggregator loaded with {@code workload} and flushed. */
  static ReportAggregator loadedAggregator(ReferenceWorkload workload) {
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
    for (PartialReport p : workload.partials()) {
      aggregator.apply(p);
    }
    aggregator.flush();
    return aggregator;
  }

  static BaselineAggregator loadedBaseline(ReferenceWorkload workload) {
    var baseline = new BaselineAggregator();
    workload.partials().forEach(baseline::apply);
    baseline.flush();
    return baseline;
  }

  public static void main(String[] args) {
    // JOL reads field offsets of records (the whole model) only through its "magic" accessor
    System.setProperty("jol.magicFieldOffset", "true");
    PrintStream out = System.out;
    if (args.length == 2 && args[0].equals("--footprint")) {
      // where the bytes go: JOL's class histogram of the aggregator state, decoded strings
      int size = Integer.parseInt(args[1]);
      var aggregator = loadedAggregator(ReferenceWorkload.reference(size));
      out.println(GraphLayout.parseInstance(aggregator).toFootprint());
      return;
    }
    int[] sizes = args.length == 0 ? new int[] {100_000} : new int[args.length];
    for (int i = 0; i < args.length; i++) {
      sizes[i] = Integer.parseInt(args[i]);
    }
    out.println("| results | strings | Tally bytes/result | baseline bytes/result | budget |");
    out.println("|---:|---|---:|---:|---:|");
    for (int size : sizes) {
      for (StringSharing sharing : StringSharing.values()) {
        var workload =
            ReferenceWorkload.generate(
                WorkloadShape.reference(size), ReferenceWorkload.SEED, sharing);
        double tally = bytesPerResult(loadedAggregator(workload), size);
        double baseline = bytesPerResult(loadedBaseline(workload), size);
        out.printf(
            Locale.ROOT,
            "| %,d | %s | %.1f | %.1f | ≤ 100 |%n",
            size,
            sharing.name().toLowerCase(Locale.ROOT),
            tally,
            baseline);
      }
    }
  }
}
