package dev.tally.report.bench;

/**
 * The heap every JMH fork runs with ({@code @Fork(jvmArgsAppend = ...)}) and {@code run-anchors.sh}
 * gives its JVMs: 6 GiB, fixed ({@code -Xms} = {@code -Xmx}) and touched at start ({@code
 * -XX:+AlwaysPreTouch}).
 *
 * <p>Why pre-touched: a heap that is only reserved is backed by memory the first time each page is
 * written, so the first iterations of a fork pay page faults for every new region the allocator
 * reaches; at 100k results that, not Tally, was most of the spread of the earlier JMH figures
 * (175–430 ms, 117–132 ms with the heap pre-touched). Fixed so that the heap never grows or shrinks
 * during a trial.
 *
 * <p>Why 6 GiB: the largest trial, 1M results with {@link Inputs#FRESH} inputs, holds the generated
 * workload (about 600 B/result decoded, 0.6 GB), the fresh copy handed to the invocation (about 950
 * B/result, 0.95 GB) and the aggregator's state (up to about 680 B/result for the baseline, 0.7
 * GB): a live set of about 2.3 GB, plus the previous invocation's copy and state as garbage.
 * (Figures from JOL at 100k results, {@code GraphLayout.totalSize()} divided by 100,000.) 6 GiB
 * keeps that live set under 40% of the heap, so G1 has room for its young generation and never
 * falls back on a full collection. Every size runs with the same heap, so that the garbage
 * collector's configuration does not change with the size being compared.
 */
public final class BenchHeap {
  /** {@code -Xms}: the initial heap, equal to the maximum. */
  public static final String MIN = "-Xms6g";

  /** {@code -Xmx}: the maximum heap. */
  public static final String MAX = "-Xmx6g";

  /** Every page of the heap written once at start, before any measurement. */
  public static final String PRE_TOUCH = "-XX:+AlwaysPreTouch";

  private BenchHeap() {}
}
