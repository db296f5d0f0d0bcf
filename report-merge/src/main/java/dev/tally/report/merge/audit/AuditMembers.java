package dev.tally.report.merge.audit;

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
}
