package dev.tally.report.fabric8;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * One token bucket for every request Tally makes in a process: at most {@code burst} requests at
 * once, refilled at {@code qps} per second. Share one instance between the publisher and the
 * controller so that together they stay within it.
 *
 * <p>Reservations are granted in arrival order: a caller takes a token now and waits until the
 * bucket would have held it, so waiting callers never starve each other. Time comes from an
 * injected ticker and waiting goes through an injected {@link Sleeper}.
 */
public final class ApiBudget {
  private final double qps;
  private final int burst;
  private final LongSupplier nanoTicker;
  private final Sleeper sleeper;
  private double tokens;
  private long lastNanos;

  /**
   * @param qps requests per second, more than zero
   * @param burst the most requests at once, at least one
   * @param nanoTicker monotonic nanoseconds, such as {@code System::nanoTime}
   */
  public ApiBudget(double qps, int burst, LongSupplier nanoTicker, Sleeper sleeper) {
    if (!(qps > 0)) {
      throw new IllegalArgumentException("qps must be more than zero, was " + qps);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be at least 1, was " + burst);
    }
    this.qps = qps;
    this.burst = burst;
    this.nanoTicker = nanoTicker;
    this.sleeper = sleeper;
    this.tokens = burst;
    this.lastNanos = nanoTicker.getAsLong();
  }

  /** A budget on the system clock. */
  public static ApiBudget of(double qps, int burst) {
    return new ApiBudget(qps, burst, System::nanoTime, Sleeper.SYSTEM);
  }

  /** Takes one token, waiting as long as the budget requires. */
  public void acquire() throws InterruptedException {
    Duration wait = reserve();
    if (!wait.isZero()) {
      sleeper.sleep(wait);
    }
  }

  /** Takes one token now and tells how long the caller must wait before using it. */
  synchronized Duration reserve() {
    long now = nanoTicker.getAsLong();
    tokens = Math.min(burst, tokens + (now - lastNanos) * qps / 1e9);
    lastNanos = now;
    tokens -= 1;
    if (tokens >= 0) {
      return Duration.ZERO;
    }
    return Duration.ofNanos((long) Math.ceil(-tokens / qps * 1e9));
  }

  public double qps() {
    return qps;
  }

  public int burst() {
    return burst;
  }
}
