package dev.tally.report.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/** How a member counts the group it is in: who takes part, and when it may plan a run itself. */
public final class AuditMembers {
  private AuditMembers() {}

  /**
   * The live members with {@code member} among them, sorted: a member always counts itself, even
   * before its own Lease is visible, for its budget share and for the units it owns.
   */
  public static List<String> liveWithSelf(Collection<String> live, String member) {
    TreeSet<String> all = new TreeSet<>(live);
    all.add(member);
    return List.copyOf(all);
  }

  /**
   * Whether a member that joined the group at {@code joinedAt} may plan a run at {@code now}: once
   * {@code planningDelay} has passed, so that replicas started together are all in the first plan
   * rather than left to pick up orphans. (It joins a run that exists at any time.)
   */
  public static boolean mayPlan(Instant joinedAt, Duration planningDelay, Instant now) {
    return !now.isBefore(joinedAt.plus(planningDelay));
  }

  /** What a member's Lease says of it at a moment. */
  public enum LeaseState {
    /** Renewed within its duration: the member takes part. */
    LIVE,
    /** Expired, but not for longer than the orphan grace: gone, its Lease left alone. */
    EXPIRED,
    /** Expired for longer than the orphan grace: anyone who sees it deletes it. */
    ORPHAN
  }

  /**
   * The state at {@code now} of a Lease renewed at {@code renewedAt} for {@code duration}: live
   * while {@code renewedAt + duration} is after now; an orphan once that moment lies more than
   * {@code orphanGrace} in the past (docs/DESIGN.md §8: three durations).
   */
  public static LeaseState leaseState(
      Instant renewedAt, Duration duration, Duration orphanGrace, Instant now) {
    Instant expires = renewedAt.plus(duration);
    if (expires.isAfter(now)) {
      return LeaseState.LIVE;
    }
    return expires.plus(orphanGrace).isBefore(now) ? LeaseState.ORPHAN : LeaseState.EXPIRED;
  }
}
