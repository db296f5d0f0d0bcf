package dev.tally.report.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * What one member remembers of its own failed attempts in the current run: per unit, how many of
 * its attempts failed and when it may try again. Immutable; a member starts each run with {@link
 * #none()}. With the run ledger and the membership it decides which unit the member audits next
 * ({@link #next}), and after a failure when to retry and whether the unit's results have become
 * stale ({@link #failed}).
 *
 * @param failures unit id to the failed attempts of this member in this run, each at least 1
 * @param retryAt unit id to the earliest instant this member tries it again
 */
public record UnitRetries(SortedMap<String, Integer> failures, SortedMap<String, Instant> retryAt) {
  public UnitRetries {
    failures = Collections.unmodifiableSortedMap(new TreeMap<>(failures));
    retryAt = Collections.unmodifiableSortedMap(new TreeMap<>(retryAt));
    for (var e : failures.entrySet()) {
      if (e.getValue() < 1) {
        throw new IllegalArgumentException(
            "failures of " + e.getKey() + " must be at least 1, was " + e.getValue());
      }
    }
  }

  /** Nothing failed yet: the state at the start of a run. */
  public static UnitRetries none() {
    return new UnitRetries(new TreeMap<>(), new TreeMap<>());
  }

  /** The unit to audit and the number of the attempt, one more than the ledger knows of. */
  public record Next(WorkUnit unit, int attempt) {}

  /**
   * What a failed attempt leads to.
   *
   * @param retries the state after it
   * @param failures this member's failed attempts of the unit in this run, this one included
   * @param retryAt when the unit may be tried again
   * @param turnedStale whether this failure is the one after which the unit's last results are
   *     stale: exactly the {@code staleAfterAttempts}-th, so they are marked once per run
   */
  public record Failure(UnitRetries retries, int failures, Instant retryAt, boolean turnedStale) {}

  public int failuresOf(String unitId) {
    return failures.getOrDefault(unitId, 0);
  }

  /**
   * The unit {@code member} audits next: the first unit of the plan (in the plan's order) that is
   * not done, that {@link ShardPlanner#assignRemaining} gives to {@code member} over {@code live},
   * and whose retry time has come at {@code now}. Empty when there is none.
   *
   * @param live the live members; {@code member} takes part even when it is not among them (its own
   *     Lease may not be visible yet), see {@link AuditMembers#liveWithSelf}
   */
  public Optional<Next> next(
      ShardPlanner planner,
      ShardPlan plan,
      RunLedger ledger,
      Collection<String> live,
      String member,
      Instant now) {
    Map<String, String> owners =
        planner.assignRemaining(plan, ledger, AuditMembers.liveWithSelf(live, member));
    for (WorkUnit u : plan.units()) {
      if (member.equals(owners.get(u.id()))
          && !retryAt.getOrDefault(u.id(), Instant.MIN).isAfter(now)) {
        return Optional.of(new Next(u, ledger.attempts(u.id()) + 1));
      }
    }
    return Optional.empty();
  }

  /**
   * A failed attempt of {@code unitId} at {@code now}: one more failure, retried after {@code
   * backoff.delay(failures, random)}.
   *
   * @throws IllegalArgumentException if {@code staleAfterAttempts} is below 1
   */
  public Failure failed(
      String unitId,
      Instant now,
      UnitBackoff backoff,
      int staleAfterAttempts,
      RandomGenerator random) {
    if (staleAfterAttempts < 1) {
      throw new IllegalArgumentException(
          "staleAfterAttempts must be at least 1, was " + staleAfterAttempts);
    }
    int failed = failuresOf(unitId) + 1;
    Duration delay = backoff.delay(failed, random);
    Instant at = now.plus(delay);
    TreeMap<String, Integer> nextFailures = new TreeMap<>(failures);
    nextFailures.put(unitId, failed);
    TreeMap<String, Instant> nextRetryAt = new TreeMap<>(retryAt);
    nextRetryAt.put(unitId, at);
    return new Failure(
        new UnitRetries(nextFailures, nextRetryAt), failed, at, failed == staleAfterAttempts);
  }

  /** The unit was audited: its failures are forgotten and it waits for nothing. */
  public UnitRetries succeeded(String unitId) {
    TreeMap<String, Integer> nextFailures = new TreeMap<>(failures);
    nextFailures.remove(unitId);
    TreeMap<String, Instant> nextRetryAt = new TreeMap<>(retryAt);
    nextRetryAt.remove(unitId);
    return new UnitRetries(nextFailures, nextRetryAt);
  }
}
