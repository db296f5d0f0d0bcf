package dev.tally.report.merge;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import java.util.Comparator;

/**
 * The one order of evaluations (docs/DESIGN.md §5.1): observedAt with nanoseconds, then generation,
 * then producer id, then a digest of the content. Later wins. The aggregator merges by it and a
 * publisher keeps, of two evaluations of one (producer, subject), the one it says is later; so both
 * keep the same one even when two evaluations tie in the first three, and a rebuild from what the
 * cluster holds equals the live state.
 *
 * <p>It is a total order on what partial reports state: two partial reports compare equal only if
 * they agree on order, coverage and results (up to a 64-bit digest).
 */
public final class EvaluationOrder {
  /** {@link #compare} as a comparator. */
  public static final Comparator<PartialReport> ORDER = EvaluationOrder::compare;

  private EvaluationOrder() {}

  /**
   * Negative, zero or positive as {@code a} is earlier than, ties with or is later than {@code b}.
   */
  public static int compare(PartialReport a, PartialReport b) {
    InvalidReportException.requireNonNull("a", a);
    InvalidReportException.requireNonNull("b", b);
    return Order.of(a).compareTo(Order.of(b));
  }

  /** Whether {@code candidate} replaces {@code current}: it is later. */
  public static boolean supersedes(PartialReport candidate, PartialReport current) {
    return compare(candidate, current) > 0;
  }
}
