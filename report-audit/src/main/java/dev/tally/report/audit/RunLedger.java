package dev.tally.report.audit;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The state of one run: per unit, the greatest {@link UnitStatus} any member reported. Each member
 * publishes only its own statuses; anyone merges them all into the same ledger, in any order, any
 * number of times. Merge is the unit-wise join, so it is commutative, associative and idempotent (a
 * state-based CRDT); a unit nobody reported yet is pending.
 *
 * @param runId the run
 * @param statuses unit id to its greatest status
 */
public record RunLedger(RunId runId, SortedMap<String, UnitStatus> statuses) {
  public RunLedger {
    statuses = Collections.unmodifiableSortedMap(new TreeMap<>(statuses));
  }

  public static RunLedger empty(RunId runId) {
    return new RunLedger(runId, new TreeMap<>());
  }

  /** This ledger with one more report about a unit, joined in. */
  public RunLedger with(String unitId, UnitStatus status) {
    TreeMap<String, UnitStatus> next = new TreeMap<>(statuses);
    next.merge(unitId, status, UnitStatus::join);
    return new RunLedger(runId, next);
  }

  /**
   * The join of two ledgers of the same run.
   *
   * @throws IllegalArgumentException if they belong to different runs
   */
  public RunLedger merge(RunLedger other) {
    if (!runId.equals(other.runId)) {
      throw new IllegalArgumentException(
          "cannot merge ledgers of runs " + runId + " and " + other.runId);
    }
    TreeMap<String, UnitStatus> next = new TreeMap<>(statuses);
    for (Map.Entry<String, UnitStatus> e : other.statuses.entrySet()) {
      next.merge(e.getKey(), e.getValue(), UnitStatus::join);
    }
    return new RunLedger(runId, next);
  }

  public Optional<UnitStatus> status(String unitId) {
    return Optional.ofNullable(statuses.get(unitId));
  }

  public boolean isDone(String unitId) {
    UnitStatus s = statuses.get(unitId);
    return s != null && s.isDone();
  }

  /** The attempts made on a unit so far, 0 if none was reported. */
  public int attempts(String unitId) {
    UnitStatus s = statuses.get(unitId);
    return s == null ? 0 : s.attempts();
  }

  /** Whether every unit of the plan is done: the run is complete. */
  public boolean isComplete(ShardPlan plan) {
    for (WorkUnit u : plan.units()) {
      if (!isDone(u.id())) {
        return false;
      }
    }
    return true;
  }

  /** How many of the plan's units are in each state (unreported units count as pending). */
  public Map<UnitState, Integer> progress(ShardPlan plan) {
    Map<UnitState, Integer> counts = new TreeMap<>();
    for (UnitState s : UnitState.values()) {
      counts.put(s, 0);
    }
    for (WorkUnit u : plan.units()) {
      UnitState s = status(u.id()).map(UnitStatus::state).orElse(UnitState.PENDING);
      counts.merge(s, 1, Integer::sum);
    }
    return counts;
  }
}
