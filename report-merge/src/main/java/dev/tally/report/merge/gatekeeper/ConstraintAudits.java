package dev.tally.report.merge.gatekeeper;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Result;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which constraints a finished run is known to have audited (the <b>confirmed</b> ones, whose
 * absence from the run retracts: {@link GatekeeperMapping#statements}), from what the constraints'
 * statuses said over time. Pure and stateful: the caller reads the statuses and hands them in
 * ({@link #observe}); not thread-safe.
 *
 * <p>Gatekeeper's audit, once a run's evaluation is done, stamps every constraint there is with the
 * run's id ({@code status.auditTimestamp}), evaluated or not: a constraint created or loaded into
 * its engine during the run is stamped too, with none of its violations in the run. So a stamp
 * naming the run is not enough. A constraint is confirmed for run {@code R} when its status names
 * {@code R} <i>and</i> its status was seen naming an earlier run of the same constraint (the same
 * uid): it existed, and was audited, before {@code R} started, so {@code R} evaluated it whole. A
 * constraint first seen naming {@code R} is confirmed from the next run on; after a restart, the
 * first run read confirms only what was seen before it, so retraction comes one run later, never
 * early.
 *
 * <p>A constraint that no longer exists (not among the statuses observed) is confirmed for every
 * run: it finds nothing, so each run retracts its results held. One of a kind whose constraints
 * could not be listed is neither: nothing is known of it, so nothing of it is retracted.
 */
public final class ConstraintAudits {
  /**
   * What a constraint's status says.
   *
   * @param uid the constraint's uid (a constraint deleted and made again under its name is new)
   * @param auditTimestamp the id of the last run that stamped it; empty before the first
   */
  public record Stamp(String uid, String auditTimestamp) {
    public Stamp {
      InvalidReportException.requireNonNull("uid", uid);
      InvalidReportException.requireNonNull("auditTimestamp", auditTimestamp);
    }
  }

  /** Per policy: the constraint's uid and the earliest run id its status was seen naming. */
  private final Map<String, Stamp> earliest = new HashMap<>();

  /** Per policy, what the statuses said last. */
  private Map<String, Stamp> current = Map.of();

  /** The constraint kinds whose constraints could not be listed when last observed. */
  private Set<String> unlisted = Set.of();

  /**
   * What every constraint's status says now, by {@linkplain GatekeeperMapping#policy policy}; a
   * constraint left out no longer exists, unless its kind is among {@code unlistedKinds}, whose
   * constraints could not be listed (nothing is known of them).
   */
  public void observe(Map<String, Stamp> statuses, Set<String> unlistedKinds) {
    InvalidReportException.requireNonNull("statuses", statuses);
    InvalidReportException.requireNoNulls("unlistedKinds", unlistedKinds);
    current = Map.copyOf(statuses);
    unlisted = Set.copyOf(unlistedKinds);
    earliest.keySet().removeIf(p -> !current.containsKey(p) && !unlisted.contains(kindOf(p)));
    current.forEach(
        (policy, stamp) -> {
          if (stamp.auditTimestamp().isEmpty()) {
            return;
          }
          Stamp seen = earliest.get(policy);
          if (seen == null
              || !seen.uid().equals(stamp.uid())
              || stamp.auditTimestamp().compareTo(seen.auditTimestamp()) < 0) {
            earliest.put(policy, stamp);
          }
        });
  }

  /**
   * The policies confirmed for {@code run}: those whose status names it and was seen naming an
   * earlier run, and those held of Gatekeeper's ({@code held}) whose constraint no longer exists.
   */
  public Set<String> confirmed(AuditRun.Finished run, Collection<AggregateReport> held) {
    InvalidReportException.requireNonNull("run", run);
    InvalidReportException.requireNoNulls("held", held);
    Set<String> confirmed = new TreeSet<>();
    current.forEach(
        (policy, stamp) -> {
          Stamp seen = earliest.get(policy);
          if (stamp.auditTimestamp().equals(run.id())
              && seen != null
              && seen.uid().equals(stamp.uid())
              && seen.auditTimestamp().compareTo(run.id()) < 0) {
            confirmed.add(policy);
          }
        });
    for (AggregateReport aggregate : held) {
      for (Result r : aggregate.results()) {
        if (r.source().equals(GatekeeperMapping.SOURCE)
            && !current.containsKey(r.policy())
            && !unlisted.contains(kindOf(r.policy()))) {
          confirmed.add(r.policy());
        }
      }
    }
    return confirmed;
  }

  /**
   * Whether no later status can confirm more for {@code run}: every kind was listed, and every
   * constraint's status names it or a later run (a status not written yet, or naming an earlier
   * run, may still come to name it).
   */
  public boolean settled(AuditRun.Finished run) {
    InvalidReportException.requireNonNull("run", run);
    return unlisted.isEmpty()
        && current.values().stream()
            .noneMatch(
                s -> s.auditTimestamp().isEmpty() || s.auditTimestamp().compareTo(run.id()) < 0);
  }

  /** The constraint kind of a policy, {@code K8sRequiredLabels} of {@code K8sRequiredLabels/x}. */
  private static String kindOf(String policy) {
    int slash = policy.indexOf('/');
    return slash < 0 ? policy : policy.substring(0, slash);
  }
}
