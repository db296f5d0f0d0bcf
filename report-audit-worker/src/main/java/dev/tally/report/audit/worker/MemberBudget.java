package dev.tally.report.audit.worker;

import dev.tally.report.audit.AuditBudget;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.client.Sleeper;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import java.time.Clock;
import java.time.Instant;
import java.util.Random;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pacing of one audit member's requests: the {@link ApiCalls} every request of the member goes
 * through, paced by the member's share of the group's {@link AuditBudget} ({@code budget / live
 * members}), a fresh token bucket whenever the share changes.
 *
 * <p>{@link AuditMember} decides what a member does in a step; this paces its requests, and logs
 * under {@link AuditMember}'s logger, so that one logger tells a member's story.
 */
final class MemberBudget {
  private static final Logger LOG = LoggerFactory.getLogger(AuditMember.class);

  private final AuditBudget group;
  private final LongSupplier ticker;
  private final Sleeper sleeper;
  private final ApiCalls calls;
  private volatile AuditBudget share;

  /**
   * Starts at the whole group's budget (the share of a member alone); {@code seed} seeds the jitter
   * of request retries.
   */
  MemberBudget(
      AuditBudget group,
      LongSupplier ticker,
      Sleeper sleeper,
      RetryPolicy retryPolicy,
      long seed,
      TallyMetrics metrics) {
    this.group = group;
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.share = group;
    this.calls = new ApiCalls(bucketOf(group), retryPolicy, new Random(seed), sleeper, metrics);
  }

  /** Monotonic nanoseconds derived from {@code clock}, for when no ticker is given. */
  static LongSupplier tickerOf(Clock clock) {
    return () -> {
      Instant now = clock.instant();
      return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    };
  }

  /** The calls every request of the member goes through. */
  ApiCalls calls() {
    return calls;
  }

  /** The member's current share of the group's budget. */
  AuditBudget share() {
    return share;
  }

  /** Switches to the share for {@code liveMembers}, as when the membership changed. */
  void follow(int liveMembers) {
    AuditBudget newShare = group.share(liveMembers);
    if (!newShare.equals(share)) {
      LOG.info("audit budget share now {} qps, burst {}", newShare.qps(), newShare.burst());
      share = newShare;
      calls.useBudget(bucketOf(newShare));
    }
  }

  /** A fresh token bucket at the rate of {@code budget}. */
  private ApiBudget bucketOf(AuditBudget budget) {
    return new ApiBudget(budget.qps(), budget.burst(), ticker, sleeper);
  }
}
