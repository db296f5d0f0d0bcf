package dev.tally.report.audit;

import dev.tally.report.merge.publish.Backoff;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How long a member waits before it tries a failed unit again: {@link Backoff}, capped exponential
 * backoff with jitter. It never gives up within a run; a unit that keeps failing is retried at the
 * cap and, after {@code staleAfterAttempts} failures, its last results are marked stale ({@link
 * UnitRetries}).
 *
 * @param base the delay after the first failure, before jitter
 * @param cap the longest delay
 */
public record UnitBackoff(Duration base, Duration cap) {
  public UnitBackoff {
    if (base.isNegative() || cap.compareTo(base) < 0) {
      throw new IllegalArgumentException("need 0 <= base <= cap, was " + base + " and " + cap);
    }
  }

  /** From 5 s up to 5 min. */
  public static UnitBackoff defaults() {
    return new UnitBackoff(Duration.ofSeconds(5), Duration.ofMinutes(5));
  }

  /**
   * The delay after failure number {@code failures} (1 for the first): {@code min(cap, base *
   * 2^(failures - 1))}, of which the upper half is drawn from {@code random} (one {@code
   * nextDouble()}, none when the delay is zero). The same arguments and the same random state give
   * the same delay.
   *
   * @throws IllegalArgumentException if {@code failures} is below 1
   */
  public Duration delay(int failures, RandomGenerator random) {
    if (failures < 1) {
      throw new IllegalArgumentException("failures must be at least 1, was " + failures);
    }
    return Backoff.jittered(base, cap, failures, random);
  }
}
