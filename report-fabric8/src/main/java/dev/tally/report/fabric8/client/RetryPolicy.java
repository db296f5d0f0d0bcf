package dev.tally.report.fabric8.client;

import dev.tally.report.merge.publish.Backoff;
import java.time.Duration;
import java.util.Random;

/**
 * How often and how long to retry a request that failed with 429, a 5xx or a connection error:
 * capped exponential backoff with jitter, never shorter than the server's Retry-After.
 *
 * @param maxAttempts attempts in all, the first included
 * @param base the delay before the first retry, before jitter
 * @param cap the longest delay from backoff (a Retry-After may ask for longer, up to {@code
 *     maxRetryAfter})
 * @param maxRetryAfter the longest Retry-After honoured, so a confused server cannot stall Tally
 */
public record RetryPolicy(int maxAttempts, Duration base, Duration cap, Duration maxRetryAfter) {
  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
    }
    if (base.isNegative() || cap.compareTo(base) < 0 || maxRetryAfter.isNegative()) {
      throw new IllegalArgumentException("need 0 <= base <= cap and maxRetryAfter >= 0");
    }
  }

  /** 6 attempts, from 200 ms up to 10 s, Retry-After honoured up to 60 s. */
  public static RetryPolicy defaults() {
    return new RetryPolicy(
        6, Duration.ofMillis(200), Duration.ofSeconds(10), Duration.ofSeconds(60));
  }

  /**
   * The delay before retry number {@code retry} (1 for the first): report-merge's {@link
   * Backoff#jittered} ({@code min(cap, base * 2^(retry - 1))}, of which the upper half is drawn at
   * random), and at least {@code retryAfter} (up to {@code maxRetryAfter}).
   */
  public Duration delay(int retry, Duration retryAfter, Random random) {
    long jittered = Backoff.jittered(base, cap, retry, random).toNanos();
    long floor = Math.min(retryAfter.toNanos(), maxRetryAfter.toNanos());
    return Duration.ofNanos(Math.max(jittered, floor));
  }
}
