package dev.tally.report.fabric8.client;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * One token bucket for every request Tally makes in a process, whose rate follows what the API
 * server grants: at most {@code burst} requests at once, refilled at a rate that starts at {@code
 * qps} and moves between a floor and a ceiling ({@code maxQps}). Share one instance between the
 * publisher and the controller so that together they stay within it.
 *
 * <p>The rate grows only while callers are waiting for tokens (demand is above the rate) and the
 * server answers: until the first 429 by ln 2 requests per second for each answer, so that it
 * doubles every second (TCP's slow start, in time rather than round trips); after it by one request
 * per second each second. A 429 halves the rate (at most once a second, so a volley of 429s from
 * one overload counts once), and its Retry-After holds every caller back until it has passed. So
 * under API Priority and Fairness the aggregator settles just below what its priority level grants,
 * and a server that answers everything lets it reach the ceiling. A budget whose ceiling is its
 * starting rate ({@link #of}) never exceeds that rate, and still backs off on 429.
 *
 * <p>Reservations are granted in arrival order: a caller takes a token now and waits until the
 * bucket would have held it, so waiting callers never starve each other. Time comes from an
 * injected ticker and waiting goes through an injected {@link Sleeper}.
 */
public final class ApiBudget {
  private static final long SECOND = 1_000_000_000L;

  /** Slow start's step per answer: at r answers a second, r·ln 2 more a second, twice r. */
  private static final double SLOW_START_STEP = Math.log(2);

  private final double startQps;
  private final double maxQps;
  private final double minQps;
  private final int burst;
  private final LongSupplier nanoTicker;
  private final Sleeper sleeper;
  private double qps;
  private double tokens;
  private long lastNanos;

  /** Slow start until the first 429: then the rate grows by one request per second each second. */
  private boolean throttledOnce;

  /** Whether the last reservation had to wait: demand is above the rate. */
  private boolean saturated;

  private long notBeforeNanos;
  private long lastDecreaseNanos;
  private boolean decreased;

  /**
   * A budget fixed at {@code qps}: it never exceeds it, and backs off below it on 429.
   *
   * @param qps requests per second, more than zero
   * @param burst the most requests at once, at least one
   * @param nanoTicker monotonic nanoseconds, such as {@code System::nanoTime}
   */
  public ApiBudget(double qps, int burst, LongSupplier nanoTicker, Sleeper sleeper) {
    this(qps, qps, burst, nanoTicker, sleeper);
  }

  /**
   * A budget that starts at {@code qps} and may grow to {@code maxQps} while the server answers.
   *
   * @param qps the starting rate, requests per second, more than zero
   * @param maxQps the ceiling, at least {@code qps}
   * @param burst the most requests at once, at least one
   * @param nanoTicker monotonic nanoseconds, such as {@code System::nanoTime}
   */
  public ApiBudget(double qps, double maxQps, int burst, LongSupplier nanoTicker, Sleeper sleeper) {
    if (!(qps > 0) || Double.isInfinite(qps)) {
      throw new IllegalArgumentException("qps must be more than zero and finite, was " + qps);
    }
    if (!(maxQps >= qps) || Double.isInfinite(maxQps)) {
      throw new IllegalArgumentException(
          "maxQps must be finite and at least qps (" + qps + "), was " + maxQps);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be at least 1, was " + burst);
    }
    this.startQps = qps;
    this.maxQps = maxQps;
    this.minQps = Math.min(qps, 1.0);
    this.qps = qps;
    this.burst = burst;
    this.nanoTicker = nanoTicker;
    this.sleeper = sleeper;
    this.tokens = burst;
    this.lastNanos = nanoTicker.getAsLong();
    this.notBeforeNanos = lastNanos;
  }

  /** A budget fixed at {@code qps}, on the system clock. */
  public static ApiBudget of(double qps, int burst) {
    return new ApiBudget(qps, burst, System::nanoTime, Sleeper.SYSTEM);
  }

  /** A budget from {@code qps} up to {@code maxQps}, on the system clock. */
  public static ApiBudget adaptive(double qps, double maxQps, int burst) {
    return new ApiBudget(qps, maxQps, burst, System::nanoTime, Sleeper.SYSTEM);
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
    long now = refill();
    tokens -= 1;
    long wait = tokens >= 0 ? 0 : (long) Math.ceil(-tokens / qps * SECOND);
    wait = Math.max(wait, notBeforeNanos - now);
    saturated = wait > 0;
    return wait > 0 ? Duration.ofNanos(wait) : Duration.ZERO;
  }

  /**
   * The server answered a request (anything but 429 and 5xx: a 404 or 409 is an answer too). The
   * rate grows if callers are waiting for tokens.
   */
  public synchronized void answered() {
    if (!saturated || qps >= maxQps) {
      return;
    }
    refill();
    qps = Math.min(maxQps, qps + (throttledOnce ? 1.0 / qps : SLOW_START_STEP));
  }

  /**
   * The server said 429: the rate halves (once a second at most, down to a floor of one request per
   * second or the starting rate if lower), the tokens in hand are given up, and no caller goes
   * before {@code retryAfter} has passed.
   */
  public synchronized void throttled(Duration retryAfter) {
    long now = refill();
    throttledOnce = true;
    tokens = Math.min(tokens, 0);
    long until = now + Math.max(0, Math.min(retryAfter.toNanos(), 3600 * SECOND));
    notBeforeNanos = Math.max(notBeforeNanos, until);
    if (!decreased || now - lastDecreaseNanos >= SECOND) {
      qps = Math.max(minQps, qps / 2);
      lastDecreaseNanos = now;
      decreased = true;
    }
  }

  private long refill() {
    long now = nanoTicker.getAsLong();
    tokens = Math.min(burst, tokens + (now - lastNanos) * qps / SECOND);
    lastNanos = now;
    return now;
  }

  /** The rate now, requests per second. */
  public synchronized double qps() {
    return qps;
  }

  /** The rate it started at. */
  public double startQps() {
    return startQps;
  }

  /** The ceiling of the rate. */
  public double maxQps() {
    return maxQps;
  }

  public int burst() {
    return burst;
  }
}
