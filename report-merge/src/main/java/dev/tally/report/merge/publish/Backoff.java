package dev.tally.report.merge.publish;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with jitter, the one rule behind every wait of Tally: a request's
 * retries (the adapter's {@code RetryPolicy}, which adds the server's Retry-After) and an audit
 * unit's retries ({@code UnitBackoff}).
 */
public final class Backoff {
  private Backoff() {}

  /**
   * The wait before try number {@code n} after the first (1 for the first retry): {@code min(cap,
   * base * 2^(n - 1))}, of which the upper half is drawn from {@code random} with one {@code
   * nextDouble()} (none when the wait is zero). The same arguments and random state give the same
   * wait; {@code n} below 1 counts as 1.
   *
   * @throws IllegalArgumentException unless {@code 0 <= base <= cap}
   */
  public static Duration jittered(Duration base, Duration cap, int n, RandomGenerator random) {
    if (base.isNegative() || cap.compareTo(base) < 0) {
      throw new IllegalArgumentException("need 0 <= base <= cap, was " + base + " and " + cap);
    }
    long baseNanos = base.toNanos();
    long capNanos = cap.toNanos();
    int shift = Math.min(Math.max(n - 1, 0), 40);
    long ceiling = baseNanos > (capNanos >> shift) ? capNanos : baseNanos << shift;
    long half = ceiling / 2;
    long jittered = half + (half > 0 ? (long) (random.nextDouble() * (ceiling - half)) : 0);
    return Duration.ofNanos(jittered);
  }
}
