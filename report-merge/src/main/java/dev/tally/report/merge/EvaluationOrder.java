package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Fingerprint;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;
import java.util.Comparator;

/**
 * The one order of evaluations (docs/DESIGN.md §5.1): {@code observedAt} with nanoseconds, then
 * generation, then producer id, then a digest of the content. Later wins. The producer only breaks
 * ties, so nothing is ever first-seen, and two evaluations equal in all three are decided by a
 * digest of what they state ({@link #content}), the same for every register of one partial report.
 * So whichever of two tied partial reports wins, it wins every key it covers.
 *
 * <p>The aggregator merges by it (each register holds the order of the evaluation it came from) and
 * a publisher keeps, of two evaluations of one (producer, subject), the one it says is later
 * ({@link #compare}, {@link #supersedes}); so both keep the same one even when two evaluations tie
 * in the first three, and a rebuild from what the cluster holds equals the live state.
 *
 * <p>It is a total order on what partial reports state: two partial reports compare equal only if
 * they agree on order, coverage and results (up to a 64-bit digest).
 *
 * @param observedAt when the evaluation was made
 * @param generation the producer's generation of the evaluation
 * @param producer the producer's id
 * @param content {@link #content} of the partial report
 */
public record EvaluationOrder(Timestamp observedAt, long generation, String producer, long content)
    implements Comparable<EvaluationOrder> {

  /** {@link #compare} as a comparator of partial reports. */
  public static final Comparator<PartialReport> ORDER = EvaluationOrder::compare;

  /** The order of the evaluation {@code p} states. */
  public static EvaluationOrder of(PartialReport p) {
    InvalidReportException.requireNonNull("partial", p);
    return new EvaluationOrder(p.observedAt(), p.generation(), p.producer(), content(p));
  }

  /**
   * Negative, zero or positive as {@code a} is earlier than, ties with or is later than {@code b}.
   */
  public static int compare(PartialReport a, PartialReport b) {
    InvalidReportException.requireNonNull("a", a);
    InvalidReportException.requireNonNull("b", b);
    return of(a).compareTo(of(b));
  }

  /** Whether {@code candidate} replaces {@code current}: it is later. */
  public static boolean supersedes(PartialReport candidate, PartialReport current) {
    return compare(candidate, current) > 0;
  }

  /**
   * A digest of what a partial report states, its subject aside: the declared coverage and the
   * results (their digests were computed when they were built, so this reads no string).
   */
  static long content(PartialReport p) {
    long h = Fingerprint.of("order");
    for (CoverageKey k : p.coverage()) {
      h = Fingerprint.string(Fingerprint.string(h, k.source()), k.policy());
    }
    long sum = 0;
    var results = p.results();
    for (int i = 0, n = results.size(); i < n; i++) {
      Result r = results.get(i);
      // a multiset: the order of the list does not matter. The timestamps count here, though not
      // in a result's digest, so two evaluations that differ only in them are still ordered
      sum += Fingerprint.withTimestamp(r);
    }
    return Fingerprint.mix(Fingerprint.value(Fingerprint.value(h, sum), results.size()));
  }

  @Override
  public int compareTo(EvaluationOrder o) {
    int c = observedAt.compareTo(o.observedAt);
    if (c == 0) {
      c = Long.compare(generation, o.generation);
    }
    if (c == 0) {
      c = producer.compareTo(o.producer);
    }
    return c != 0 ? c : Long.compareUnsigned(content, o.content);
  }
}
