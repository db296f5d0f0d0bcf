package dev.tally.report.merge.publish;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;

/**
 * How far ahead of the aggregator's clock an evaluation may claim to be (docs/DESIGN.md, "Trust
 * model", the clock rule). Times order evaluations, so a time in the future outranks every real
 * evaluation made before it, and a deletion at the later of now and what was observed would stay in
 * force as long: a writer who may state results in a namespace could pin them there for centuries.
 * So an evaluation observed, or holding a result stamped, more than the allowed skew after the
 * aggregator's clock is refused, naming the field, and changes nothing; and what is read back from
 * the reports the cluster holds (a seed) never counts as later than the moment it was read, so that
 * any evaluation made after that outranks it.
 *
 * <p>Pure: the caller passes its clock's reading in.
 */
public final class ClockRule {
  /** The skew allowed by default between a producer's clock and the aggregator's: 5 minutes. */
  public static final Duration DEFAULT_MAX_SKEW = Duration.ofMinutes(5);

  private final Duration maxSkew;

  private ClockRule(Duration maxSkew) {
    this.maxSkew = maxSkew;
  }

  /**
   * The rule allowing {@code maxSkew} between a producer's clock and the aggregator's.
   *
   * @throws InvalidReportException naming {@code maxClockSkew} if it is null or negative
   */
  public static ClockRule allowing(Duration maxSkew) {
    if (InvalidReportException.requireNonNull("maxClockSkew", maxSkew).isNegative()) {
      throw new InvalidReportException("maxClockSkew", "must not be negative, was " + maxSkew);
    }
    return new ClockRule(maxSkew);
  }

  /** The skew this rule allows. */
  public Duration maxSkew() {
    return maxSkew;
  }

  /**
   * The latest time an evaluation read at {@code now} may state: {@code now} plus the skew, to the
   * nanosecond (a skew of 500 ms is not 0 s), saturating at {@link Timestamp#MAX_SECONDS}.
   */
  public Timestamp latestAccepted(Timestamp now) {
    InvalidReportException.requireNonNull("now", now);
    long nanos = (long) now.nanos() + maxSkew.getNano();
    long carry = nanos / 1_000_000_000L;
    long room = Timestamp.MAX_SECONDS - now.seconds();
    long skewSeconds = maxSkew.getSeconds();
    if (skewSeconds > room || skewSeconds + carry > room) {
      return new Timestamp(Timestamp.MAX_SECONDS, 999_999_999);
    }
    return new Timestamp(now.seconds() + skewSeconds + carry, (int) (nanos % 1_000_000_000L));
  }

  /** The skew in seconds as it was given, to the nanosecond: {@code 300}, {@code 0.5}. */
  private String skewSeconds() {
    return BigDecimal.valueOf(maxSkew.getSeconds())
        .add(BigDecimal.valueOf(maxSkew.getNano(), 9))
        .stripTrailingZeros()
        .toPlainString();
  }

  /**
   * {@code partial} when neither its {@code observedAt} nor any result's timestamp is later than
   * {@link #latestAccepted} at {@code now}.
   *
   * @throws InvalidReportException naming {@code observedAt} or {@code results[i].timestamp}
   *     otherwise
   */
  public PartialReport check(PartialReport partial, Timestamp now) {
    InvalidReportException.requireNonNull("partial", partial);
    Timestamp latest = latestAccepted(now);
    // the results first: an observedAt is often derived from them, and the result is the source
    List<Result> results = partial.results();
    for (int i = 0; i < results.size(); i++) {
      var t = results.get(i).timestamp();
      if (t.isPresent() && t.get().isAfter(latest)) {
        throw tooLate("results[" + i + "].timestamp", t.get(), now);
      }
    }
    if (partial.observedAt().isAfter(latest)) {
      throw tooLate("observedAt", partial.observedAt(), now);
    }
    return partial;
  }

  /**
   * A seed read at {@code now} from a report the cluster holds, checked as {@link #check} checks an
   * evaluation and then observed no later than {@code now}: what was written before cannot outrank
   * an evaluation made after it was read.
   *
   * @throws InvalidReportException as {@link #check}
   */
  public PartialReport seed(PartialReport seed, Timestamp now) {
    check(seed, now);
    return seed.observedAt().isAfter(now) ? seed.withObservedAt(now) : seed;
  }

  private InvalidReportException tooLate(String field, Timestamp t, Timestamp now) {
    return new InvalidReportException(
        field,
        "is "
            + t
            + ", later than the aggregator's clock ("
            + now
            + ") plus the allowed clock skew of "
            + skewSeconds()
            + " s: an evaluation cannot be from the future");
  }
}
