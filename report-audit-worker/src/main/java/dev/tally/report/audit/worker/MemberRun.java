package dev.tally.report.audit.worker;

import dev.tally.report.audit.RunId;
import dev.tally.report.audit.RunLedger;
import dev.tally.report.audit.ShardPlanner;
import dev.tally.report.audit.UnitBackoff;
import dev.tally.report.audit.UnitRetries;
import dev.tally.report.audit.UnitStatus;
import dev.tally.report.audit.WorkUnit;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One audit member's part in the run it is in: the run's manifest, the member's own ledger of its
 * units (written to its status ConfigMap), the retries of its failed units, and the work on one
 * unit: mark it pending, audit it, record it done, or failed with the reason (and, once it has
 * failed {@code staleAfterAttempts} times, mark its last results stale).
 *
 * <p>It owns this member's record of the run and does its units; {@link AuditMember} decides each
 * step (Lease membership, which run, whether it is complete, which unit next). Not thread-safe: the
 * member calls it under its lock. It logs under {@link AuditMember}'s logger.
 */
final class MemberRun {
  private static final Logger LOG = LoggerFactory.getLogger(AuditMember.class);

  private final String member;
  private final Map<String, AuditTarget> targetsByKind;
  private final MemberStatusStore statuses;
  private final RunManifestStore manifests;
  private final UnitAuditor auditor;
  private final StaleMarker staleMarker;
  private final Clock clock;
  private final UnitBackoff unitBackoff;
  private final int staleAfterAttempts;
  private final Random random;

  private @Nullable RunManifest run;
  private RunLedger mine = RunLedger.empty(new RunId(0, "0000000000000000"));
  private RunLedger lastLedger = mine;
  private UnitRetries retries = UnitRetries.none();

  /** {@code random} is the jitter of {@code unitBackoff}. */
  MemberRun(
      String member,
      Map<String, AuditTarget> targetsByKind,
      MemberStatusStore statuses,
      RunManifestStore manifests,
      UnitAuditor auditor,
      StaleMarker staleMarker,
      Clock clock,
      UnitBackoff unitBackoff,
      int staleAfterAttempts,
      Random random) {
    this.member = member;
    this.targetsByKind = Map.copyOf(targetsByKind);
    this.statuses = statuses;
    this.manifests = manifests;
    this.auditor = auditor;
    this.staleMarker = staleMarker;
    this.clock = clock;
    this.unitBackoff = unitBackoff;
    this.staleAfterAttempts = staleAfterAttempts;
    this.random = random;
  }

  /**
   * The targets by the id of their kind's unit.
   *
   * @throws IllegalArgumentException if two targets have the same kind
   */
  static Map<String, AuditTarget> byKind(List<AuditTarget> targets) {
    Map<String, AuditTarget> byKind = new LinkedHashMap<>();
    for (AuditTarget t : targets) {
      if (byKind.put(WorkUnit.ofKind(t.gvk(), 1).id(), t) != null) {
        throw new IllegalArgumentException("target " + t.gvk() + " appears twice");
      }
    }
    return byKind;
  }

  /**
   * Joins {@code current} unless this member is in it already: a fresh ledger and no retries, and
   * the manifests and statuses of earlier runs and of members not {@code live} cleaned up.
   */
  void follow(RunManifest current, List<String> live) {
    if (run != null && run.runId().equals(current.runId())) {
      return;
    }
    LOG.info("{} joins run {} with {} live members", member, current.runId(), live.size());
    run = current;
    mine = RunLedger.empty(current.runId());
    retries = UnitRetries.none();
    manifests.cleanUpBefore(current.runId().epoch() - 1);
    statuses.cleanUp(current.runId(), new TreeSet<>(live));
  }

  /** Merges every member's status of {@code current} with this member's own into the run ledger. */
  RunLedger merge(RunManifest current) {
    RunLedger ledger = statuses.read(current.runId()).merge(mine);
    lastLedger = ledger;
    return ledger;
  }

  /** The unit this member takes next in {@code current}, if any is due now. */
  Optional<UnitRetries.Next> next(
      ShardPlanner planner, RunManifest current, RunLedger ledger, List<String> live, Instant now) {
    return retries.next(planner, current.plan(), ledger, live, member, now);
  }

  /**
   * Audits {@code unit} of {@code current} and records the outcome: whether every evaluation of it
   * was written (else it failed, and is retried, or marked stale).
   */
  boolean audit(RunManifest current, WorkUnit unit, int attempt) {
    String id = unit.id();
    mine = mine.with(id, UnitStatus.pending(member, attempt));
    statuses.write(member, mine);
    AuditTarget target = targetsByKind.get(WorkUnit.ofKind(unit.gvk(), 1).id());
    if (target == null) {
      fail(unit, attempt, "no target for kind " + unit.gvk() + " in this member's settings");
      return false;
    }
    try {
      long objects = auditor.audit(unit, target, current.runId().epoch());
      mine = mine.with(id, UnitStatus.done(member, attempt, objects));
      statuses.write(member, mine);
      retries = retries.succeeded(id);
      LOG.debug("{} audited {} ({} objects)", member, id, objects);
      return true;
    } catch (UnitAuditFailure f) {
      if (fail(unit, attempt, f.getMessage()).turnedStale()) {
        staleMarker.mark(
            unit, target, auditor.producer(), UnitStatus.failureReason(f.getMessage()));
      }
      return false;
    }
  }

  /** Records a failed attempt; {@link UnitRetries#failed} says when to retry and if it is stale. */
  private UnitRetries.Failure fail(WorkUnit unit, int attempt, @Nullable String reason) {
    String why = UnitStatus.failureReason(reason);
    mine = mine.with(unit.id(), UnitStatus.failed(member, attempt, why));
    statuses.write(member, mine);
    UnitRetries.Failure failure =
        retries.failed(unit.id(), clock.instant(), unitBackoff, staleAfterAttempts, random);
    retries = failure.retries();
    LOG.warn("{} failed to audit {} (attempt {}): {}", member, unit.id(), attempt, why);
    return failure;
  }

  /** The ledger as this member last merged it. */
  RunLedger lastLedger() {
    return lastLedger;
  }

  /** Whether the run this member is in was complete when it last merged the ledger. */
  boolean complete() {
    return run != null && lastLedger.isComplete(run.plan());
  }

  /** The run's id, once the member has joined one. */
  Optional<RunId> runId() {
    return run == null ? Optional.empty() : Optional.of(run.runId());
  }
}
