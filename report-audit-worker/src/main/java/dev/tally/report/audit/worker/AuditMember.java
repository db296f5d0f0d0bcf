package dev.tally.report.audit.worker;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.audit.AuditBudget;
import dev.tally.report.audit.AuditMembers;
import dev.tally.report.audit.PageSizeAdvisor;
import dev.tally.report.audit.RunId;
import dev.tally.report.audit.RunLedger;
import dev.tally.report.audit.ShardPlanner;
import dev.tally.report.audit.UnitBackoff;
import dev.tally.report.audit.UnitCatalog;
import dev.tally.report.audit.UnitRetries;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.ApiClientBuilder;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.client.Sleeper;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica's part in a distributed audit. Run one per replica, all with the same group, targets
 * and policies; each {@link #tick()} does one step:
 *
 * <ol>
 *   <li>renew this member's Lease and read who is live;
 *   <li>find the run of the current interval: its manifest (units and the members it was planned
 *       over) is created by the first member to get there and read by the others;
 *   <li>merge every member's status into the run ledger; if every unit is done, the run is complete
 *       and there is nothing to do until the next interval;
 *   <li>otherwise take the next unit this member owns (its planned units, plus the units of members
 *       that left, as {@link ShardPlanner#assignRemaining} divides them), mark it pending, audit
 *       it, and record done, or failed with the reason (retried after a backoff; after {@code
 *       staleAfterAttempts} failures its last results are marked stale).
 * </ol>
 *
 * <p>All members share one {@link AuditBudget}: each uses {@code budget / live members}, so more
 * replicas never mean more API load. Time comes from the injected clock; {@link #tick()} is
 * synchronous, and {@link #start} runs it periodically on the caller's executor.
 *
 * <p>This class decides each step and holds the configuration ({@link Builder}); it is split along
 * the line between deciding a step and carrying it out: {@code MemberRun} keeps this member's
 * record of the run and does its units, {@code MemberBudget} paces its requests by its share of the
 * budget.
 */
public final class AuditMember implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AuditMember.class);

  private final String member;
  private final List<AuditTarget> targets;
  private final Duration interval;
  private final Duration planningDelay;
  private final Clock clock;
  private final ShardPlanner planner;
  private final MemberBudget budget;
  private final LeaseMembership membership;
  private final RunManifestStore manifests;
  private final ClusterCensus census;
  private final UnitAuditor auditor;
  private final MemberRun work;

  private final Object lock = new Object();
  private @Nullable ScheduledFuture<?> scheduled;
  private @Nullable Instant joinedAt;

  /** What one {@link #tick()} did. */
  public enum Step {
    /** Audited a unit to completion. */
    AUDITED,
    /** Tried a unit and failed; it will be retried. */
    FAILED,
    /** Nothing of this member's to do now (units elsewhere, or waiting for a retry). */
    IDLE,
    /** The run of this interval is complete. */
    COMPLETE
  }

  /** What the member takes from {@link ApiClientBuilder}'s settings. */
  private record Wiring(
      KubernetesClient client,
      RetryPolicy retryPolicy,
      long seed,
      Sleeper sleeper,
      TallyMetrics metrics) {}

  private AuditMember(Builder b, Wiring w) {
    this.member = AuditNames.checkId("member", b.member);
    String group = AuditNames.checkId("group", b.group);
    if (b.targets.isEmpty()) {
      throw new IllegalArgumentException("an audit needs at least one target");
    }
    if (b.policies.isEmpty()) {
      throw new IllegalArgumentException("an audit needs the policies it audits (its coverage)");
    }
    this.targets = List.copyOf(b.targets);
    Map<String, AuditTarget> targetsByKind = MemberRun.byKind(targets);
    this.interval = b.interval;
    this.planningDelay = b.planningDelay != null ? b.planningDelay : b.leaseDuration;
    this.clock = b.clock;
    this.planner = new ShardPlanner(b.epsilon);
    this.budget =
        new MemberBudget(
            b.groupBudget,
            b.nanoTicker != null ? b.nanoTicker : MemberBudget.tickerOf(b.clock),
            w.sleeper(),
            w.retryPolicy(),
            w.seed(),
            w.metrics());
    ApiCalls calls = budget.calls();
    KubernetesClient client = w.client();
    this.membership =
        new LeaseMembership(
            client,
            calls,
            b.namespace,
            group,
            member,
            b.leaseDuration,
            b.leaseDuration.multipliedBy(3),
            clock);
    this.manifests = new RunManifestStore(client, calls, b.namespace, group, planner);
    this.census = new ClusterCensus(client, calls);
    this.auditor =
        new UnitAuditor(
            client,
            calls,
            Objects.requireNonNull(b.publisher, "publisher"),
            Objects.requireNonNull(b.evaluator, "evaluator"),
            b.policies,
            b.pages,
            clock,
            group,
            3,
            b.publishTimeout);
    this.work =
        new MemberRun(
            member,
            targetsByKind,
            new MemberStatusStore(client, calls, b.namespace, group),
            manifests,
            auditor,
            new StaleMarker(client, calls),
            clock,
            b.unitBackoff,
            b.staleAfterAttempts,
            new Random(w.seed()));
  }

  public static Builder builder(KubernetesClient client) {
    return new Builder(client);
  }

  public String member() {
    return member;
  }

  /**
   * The producer id of this member's partial reports: {@code audit/<group>}, the same for every
   * member of the group, so whichever member evaluates an object writes the same partial report.
   */
  public String producer() {
    return auditor.producer();
  }

  /** Does one step of the audit; see the class comment. */
  public Step tick() {
    synchronized (lock) {
      membership.renew();
      List<String> live = AuditMembers.liveWithSelf(membership.live(), member);
      budget.follow(live.size());
      long epoch = RunId.epochOf(clock.instant(), interval);
      Instant now = clock.instant();
      // plan only after a lease duration in the group, so replicas starting together are all in
      // the plan rather than left to pick up orphans
      boolean mayPlan = AuditMembers.mayPlan(joinedAt(now), planningDelay, now);
      Optional<RunManifest> found =
          manifests.getOrCreate(
              epoch,
              mayPlan,
              () ->
                  planner.plan(
                      UnitCatalog.unitsAsCounted(
                          census.take(targets, live.size(), planner.epsilon())),
                      live));
      if (found.isEmpty()) {
        return Step.IDLE;
      }
      RunManifest current = found.get();
      work.follow(current, live);
      RunLedger ledger = work.merge(current);
      if (ledger.isComplete(current.plan())) {
        return Step.COMPLETE;
      }
      Optional<UnitRetries.Next> next = work.next(planner, current, ledger, live, now);
      if (next.isEmpty()) {
        return Step.IDLE;
      }
      return work.audit(current, next.get().unit(), next.get().attempt())
          ? Step.AUDITED
          : Step.FAILED;
    }
  }

  private Instant joinedAt(Instant now) {
    if (joinedAt == null) {
      joinedAt = now;
    }
    return joinedAt;
  }

  /** The ledger as this member last merged it. */
  public RunLedger ledger() {
    synchronized (lock) {
      return work.lastLedger();
    }
  }

  /** Whether the run this member is in was complete at its last tick. */
  public boolean runComplete() {
    synchronized (lock) {
      return work.complete();
    }
  }

  /** The current run's id, once the member has joined one. */
  public Optional<RunId> runId() {
    synchronized (lock) {
      return work.runId();
    }
  }

  /** This member's current share of the group's API budget. */
  public AuditBudget budgetShare() {
    return budget.share();
  }

  /** Runs {@link #tick()} every {@code period} on {@code executor} until {@link #close()}. */
  public void start(ScheduledExecutorService executor, Duration period) {
    synchronized (lock) {
      scheduled =
          executor.scheduleWithFixedDelay(
              () -> {
                try {
                  tick();
                } catch (RuntimeException e) {
                  LOG.warn(
                      "audit step of {} failed: {}", member, RequestFailedException.rootCause(e));
                }
              },
              0,
              period.toNanos(),
              TimeUnit.NANOSECONDS);
    }
  }

  /** Stops ticking and leaves the group, so the others take over this member's units at once. */
  @Override
  public void close() {
    synchronized (lock) {
      if (scheduled != null) {
        scheduled.cancel(false);
      }
      membership.leave();
    }
  }

  /**
   * Configures an {@link AuditMember}. The request settings are {@link ApiClientBuilder}'s, as for
   * the other components: {@code retryPolicy} (retries of one request: 429, 5xx), {@code seed} (the
   * jitter of request retries and of {@link #unitBackoff}), {@code sleeper} and {@code metrics}.
   * The budget is the group's, {@link #groupBudget}; {@link #budget(ApiBudget)} is refused.
   */
  public static final class Builder extends ApiClientBuilder<Builder> {
    private String group = "default";
    private String member = "";
    private String namespace = "default";
    private List<AuditTarget> targets = List.of();
    private Set<CoverageKey> policies = Set.of();
    private @Nullable AuditEvaluator evaluator;
    private @Nullable PartialReportPublisher publisher;
    private AuditBudget groupBudget = new AuditBudget(20, 40);
    private Duration interval = Duration.ofHours(1);
    private Duration leaseDuration = Duration.ofSeconds(30);
    private @Nullable Duration planningDelay;
    private Clock clock = Clock.systemUTC();
    private @Nullable LongSupplier nanoTicker;
    private UnitBackoff unitBackoff = UnitBackoff.defaults();
    private PageSizeAdvisor pages = PageSizeAdvisor.defaults();
    private double epsilon = ShardPlanner.DEFAULT_EPSILON;
    private int staleAfterAttempts = 3;
    private Duration publishTimeout = Duration.ofMinutes(2);

    private Builder(KubernetesClient client) {
      super(client);
    }

    /** The audit group: members with the same group share the work. A DNS label. */
    public Builder group(String group) {
      this.group = group;
      return this;
    }

    /** This member's id, unique in the group, such as the pod name. A DNS label. */
    public Builder member(String member) {
      this.member = member;
      return this;
    }

    /** Where the Leases, status and manifest ConfigMaps live. */
    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    public Builder targets(List<AuditTarget> targets) {
      this.targets = List.copyOf(targets);
      return this;
    }

    /** The policies audited: the coverage of every partial report the audit writes. */
    public Builder policies(Set<CoverageKey> policies) {
      this.policies = Set.copyOf(policies);
      return this;
    }

    public Builder evaluator(AuditEvaluator evaluator) {
      this.evaluator = evaluator;
      return this;
    }

    /** The adapter's publisher the results go through (share it with the rest of the process). */
    public Builder publisher(PartialReportPublisher publisher) {
      this.publisher = publisher;
      return this;
    }

    /**
     * The budget of the whole group (20 qps, burst 40 by default), divided among the live members:
     * each member's requests go through its own share, which follows the membership.
     */
    public Builder groupBudget(AuditBudget groupBudget) {
      this.groupBudget = Objects.requireNonNull(groupBudget, "groupBudget");
      return this;
    }

    /**
     * Refused: a member's requests are paced by its share of {@link #groupBudget}, which changes
     * with the membership; a process-wide {@link ApiBudget} would make every replica add its own
     * rate, so more replicas would mean more API load.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public Builder budget(ApiBudget budget) {
      throw new UnsupportedOperationException(
          "an audit member is paced by its share of the group's budget: use"
              + " groupBudget(AuditBudget), not budget(ApiBudget)");
    }

    /** How often a run starts; a run belongs to the interval its manifest was made in. */
    public Builder interval(Duration interval) {
      this.interval = interval;
      return this;
    }

    public Builder leaseDuration(Duration leaseDuration) {
      if (leaseDuration.toSeconds() < 1) {
        throw new IllegalArgumentException("leaseDuration must be at least a second");
      }
      this.leaseDuration = leaseDuration;
      return this;
    }

    /**
     * How long a member waits after joining before it may plan a run itself (it joins a run that
     * exists at once); the lease duration by default, so that replicas started together are all in
     * the first plan.
     */
    public Builder planningDelay(Duration planningDelay) {
      this.planningDelay = planningDelay;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** Monotonic nanoseconds for the budget; by default derived from the clock. */
    public Builder nanoTicker(LongSupplier nanoTicker) {
      this.nanoTicker = Objects.requireNonNull(nanoTicker, "nanoTicker");
      return this;
    }

    /**
     * Backoff between attempts of a failed unit ({@link UnitBackoff#defaults()}: 5 s up to 5 min);
     * never gives up within a run.
     */
    public Builder unitBackoff(UnitBackoff unitBackoff) {
      this.unitBackoff = Objects.requireNonNull(unitBackoff, "unitBackoff");
      return this;
    }

    public Builder pageSizes(PageSizeAdvisor pages) {
      this.pages = pages;
      return this;
    }

    public Builder epsilon(double epsilon) {
      this.epsilon = epsilon;
      return this;
    }

    /** After this many failed attempts of a unit, its last results are marked stale. */
    public Builder staleAfterAttempts(int staleAfterAttempts) {
      if (staleAfterAttempts < 1) {
        throw new IllegalArgumentException("staleAfterAttempts must be at least 1");
      }
      this.staleAfterAttempts = staleAfterAttempts;
      return this;
    }

    public Builder publishTimeout(Duration publishTimeout) {
      this.publishTimeout = publishTimeout;
      return this;
    }

    public AuditMember build() {
      return new AuditMember(
          this, new Wiring(client(), retryPolicy(), seed(), sleeper(), metrics()));
    }
  }
}
