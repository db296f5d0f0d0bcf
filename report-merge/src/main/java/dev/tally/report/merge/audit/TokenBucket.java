package dev.tally.report.merge.audit;

/**
 * A token bucket over an {@link ApiBudget}, with time passed in as nanoseconds from any fixed
 * origin (a {@code System.nanoTime()} reading or a test's virtual time). It never reads a clock and
 * never sleeps: {@link #reserve} says how long the caller must wait, and the caller waits its own
 * way. Not thread-safe; one member's worker owns one.
 *
 * <p>Invariant: over any window of length {@code t} the reservations granted, counted at the
 * instant each may proceed, are at most {@code burst + qps × t}.
 */
public final class TokenBucket {
  private ApiBudget budget;
  private double tokens;
  private long lastNanos;

  /** A full bucket at {@code nowNanos}. */
  public TokenBucket(ApiBudget budget, long nowNanos) {
    this.budget = budget;
    this.tokens = budget.burst();
    this.lastNanos = nowNanos;
  }

  public ApiBudget budget() {
    return budget;
  }

  /**
   * Changes the budget, as when the membership changes; tokens above the new burst are dropped so
   * that a shrinking share takes effect at once.
   */
  public void setBudget(ApiBudget newBudget, long nowNanos) {
    refill(nowNanos);
    budget = newBudget;
    tokens = Math.min(tokens, newBudget.burst());
  }

  /**
   * Takes one token and returns how many nanoseconds from {@code nowNanos} the request must wait: 0
   * when a token was available. A positive wait is already reserved: wait it, then proceed without
   * calling again.
   */
  public long reserve(long nowNanos) {
    refill(nowNanos);
    tokens -= 1;
    if (tokens >= 0) {
      return 0;
    }
    return (long) Math.ceil(-tokens / budget.qps() * 1e9);
  }

  /** Takes one token if one is available now, without reserving. */
  public boolean tryAcquire(long nowNanos) {
    refill(nowNanos);
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }

  private void refill(long nowNanos) {
    long elapsed = nowNanos - lastNanos;
    if (elapsed > 0) {
      tokens = Math.min(budget.burst(), tokens + elapsed * budget.qps() / 1e9);
      lastNanos = nowNanos;
    }
  }
}
