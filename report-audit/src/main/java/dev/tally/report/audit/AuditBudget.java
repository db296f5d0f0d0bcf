package dev.tally.report.audit;

/**
 * A request rate: a sustained rate and a burst. The audit group has one global budget; each live
 * member uses {@link #share} of it, so adding replicas never adds API load.
 *
 * @param qps sustained requests per second, positive
 * @param burst requests that may go at once after an idle period, at least 1
 */
public record AuditBudget(double qps, int burst) {
  public AuditBudget {
    if (!(qps > 0) || Double.isInfinite(qps)) {
      throw new IllegalArgumentException("qps must be positive and finite, was " + qps);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be at least 1, was " + burst);
    }
  }

  /**
   * One member's part of this budget when {@code liveMembers} share it: the rate divided exactly,
   * the burst divided rounding down but never below one request (so with more members than burst,
   * the bursts together may exceed the global burst by at most one request per member; the rate
   * never does).
   */
  public AuditBudget share(int liveMembers) {
    if (liveMembers < 1) {
      throw new IllegalArgumentException("liveMembers must be at least 1, was " + liveMembers);
    }
    return new AuditBudget(qps / liveMembers, Math.max(1, burst / liveMembers));
  }

  /**
   * The most requests this budget admits in a window of {@code nanos}: the burst plus the rate over
   * the window. What a test counts against.
   */
  public long maxRequestsIn(long nanos) {
    return burst + (long) Math.floor(qps * nanos / 1e9);
  }
}
