package dev.tally.report.bench;

import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.EncodedSize;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
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
 * Splitting: the reference workload's 100,000 results in one namespace form a single group, which
 * every flush must cut into partitions under the limits: {@code maxResults} 1000 (100 partitions of
 * at most 1000 results) or {@code maxBytes} 256 KiB (partitions of about 550 results). One
 * operation aggregates the group from scratch and flushes it, so the figure compares with {@link
 * FullAggregationBenchmark} (100 groups of 1000 results that need no split). The baseline sorts the
 * group and cuts it into consecutive chunks under the same limit, the obvious first try (which
 * reshuffles every later chunk when one result is added, unlike Tally's stable partitions).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {BenchHeap.MIN, BenchHeap.MAX, BenchHeap.PRE_TOUCH})
public class SplitBenchmark {
  static final int MAX_BYTES = 256 * 1024;

  @Param({"maxResults", "maxBytes"})
  public String limit;

  private List<PartialReport> partials = List.of();
  private ReportLimits limits = ReportLimits.defaults();

  @Setup
  public void generate() {
    partials =
        ReferenceWorkload.generate(WorkloadShape.REFERENCE.inOneNamespace(), ReferenceWorkload.SEED)
            .partials();
    limits = limits(limit);
  }

  static ReportLimits limits(String limit) {
    return switch (limit) {
      case "maxResults" -> ReportLimits.defaults();
      case "maxBytes" -> ReportLimits.defaults().withMaxResults(100_000).withMaxBytes(MAX_BYTES);
      default -> throw new IllegalArgumentException("unknown limit " + limit);
    };
  }

  @Benchmark
  public ChangeSet tally() {
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.perNamespace()).limits(limits).build();
    for (PartialReport p : partials) {
      aggregator.apply(p);
    }
    return aggregator.flush();
  }

  @Benchmark
  public List<List<Result>> baseline() {
    var baseline = new BaselineAggregator();
    for (PartialReport p : partials) {
      baseline.apply(p);
    }
    baseline.flush();
    List<List<Result>> chunks = new ArrayList<>();
    for (var report : baseline.published().values()) {
      chunks.addAll(chunk(report.results(), limits));
    }
    return chunks;
  }

  /** Consecutive chunks of sorted results, each within both limits. */
  static List<List<Result>> chunk(List<Result> sorted, ReportLimits limits) {
    List<List<Result>> chunks = new ArrayList<>();
    int start = 0;
    long bytes = 0;
    // room for the envelope, as Tally keeps
    long budget = limits.maxBytes() - 4096L;
    for (int i = 0; i < sorted.size(); i++) {
      int size = EncodedSize.of(sorted.get(i)) + 1;
      if (i > start && (i - start >= limits.maxResults() || bytes + size > budget)) {
        chunks.add(sorted.subList(start, i));
        start = i;
        bytes = 0;
      }
      bytes += size;
    }
    if (start < sorted.size()) {
      chunks.add(sorted.subList(start, sorted.size()));
    }
    return chunks;
  }
}
