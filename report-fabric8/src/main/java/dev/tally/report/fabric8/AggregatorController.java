package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.kyverno.KyvernoInput;
import dev.tally.report.merge.ClockRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link ReportAggregator} against a cluster: informers on partial reports feed it, each
 * flush's ChangeSet is written after a short window that coalesces writes, and conflicts are
 * resolved by re-reading the owned aggregates and re-diffing. With leader election only the replica
 * holding the Lease aggregates and writes; the others wait.
 *
 * <p>Aggregates are derived state: on start and on winning the Lease the controller rebuilds a
 * fresh aggregator from the partial reports, diffs it against the owned aggregates in the cluster,
 * writes the difference and deletes owned orphans. A crash at any point loses nothing.
 *
 * <p>Thread confinement: the aggregator and all bookkeeping live on one thread ({@code
 * tally-aggregator}); informer callbacks and timers only submit tasks to it.
 *
 * <p>This class wires the parts and begins and ends each term of leadership: {@link LeaderElector}
 * (the Lease), {@link AggregatorThread} (the one thread), {@link PartialReportFeed} (informers and
 * re-lists), {@link PartialReportLedger} (what the aggregator was fed, with the pure {@code
 * SubjectIndex} deciding deletions), {@link RejectionEvents} (what a refusal shows) and {@link
 * WriteScheduler} (flushes and resyncs).
 */
public final class AggregatorController implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AggregatorController.class);

  private final Supplier<ReportAggregator> aggregators;
  private final RetryPolicy retryPolicy;
  private final Random random;
  private final Clock clock;
  private final Duration resyncPeriod;
  private final Duration syncTimeout;
  private final @Nullable LeaderElector elector;
  private final AggregatorThread thread;
  private final PartialReportLedger ledger;
  private final WriteScheduler scheduler;
  private final PartialReportFeed feed;
  private final @Nullable IntermediateReports intermediate;
  private final @Nullable KyvernoPolicyWatch policies;

  private volatile boolean leading;
  private volatile boolean closed;

  private AggregatorController(Builder b) {
    this.aggregators = Objects.requireNonNull(b.aggregators, "aggregator");
    this.retryPolicy = b.retryPolicy;
    this.random = new Random(b.seed);
    this.clock = b.clock;
    this.resyncPeriod = b.resyncPeriod;
    this.syncTimeout = b.syncTimeout;
    ApiCalls calls = b.calls(random);
    // the thread and the ledger call the scheduler back, which needs both: through this
    this.thread = new AggregatorThread(this::taskFailed);
    FeedInput input = b.kyverno == null ? new TallyPartialsInput() : new KyvernoReportsInput();
    this.intermediate =
        b.kyverno == null
            ? null
            : new IntermediateReports(b.client, calls, b.kyverno, b.metrics, b.clock);
    this.ledger =
        new PartialReportLedger(
            input,
            intermediate,
            new RejectionEvents(b.client, calls, b.metrics, b.clock, b.emitEvents),
            b.metrics,
            this::now,
            ClockRule.allowing(b.maxClockSkew),
            this::changed);
    this.scheduler =
        new WriteScheduler(
            thread,
            ledger,
            new ReportWriter(b.client, calls, b.metrics, b.serverSideApply),
            b.metrics,
            b.nanoTicker,
            b.retryPolicy,
            random,
            b.flushWindow,
            () -> leading,
            () -> closed,
            b.minResyncInterval);
    this.feed = new PartialReportFeed(b.client, calls, input, thread, ledger, b.syncTimeout);
    this.policies =
        b.kyverno == null || !b.kyverno.watchesPolicies()
            ? null
            : new KyvernoPolicyWatch(
                b.client, liveness -> thread.submit(() -> ledger.setLiveness(liveness)));
    this.elector =
        b.election == null
            ? null
            : new LeaderElector(
                b.client,
                calls,
                b.election,
                () -> closed,
                () -> {
                  leading = true;
                  thread.submit(this::becomeLeader);
                },
                () -> {
                  leading = false;
                  thread.submit(this::stepDown);
                });
  }

  public static Builder builder(KubernetesClient client) {
    return new Builder(client);
  }

  /**
   * Starts: at once without leader election, otherwise when this replica wins the Lease.
   *
   * <p>Before anything runs in the background it makes, once, the first requests the controller
   * depends on (a GET of the Lease when electing, a LIST of one partial report), with the usual
   * budget and retries: a server that refuses them (RBAC, a wrong address, an unreachable API
   * server) makes {@code start} throw with the server's or the network's reason, instead of a
   * background loop that retries with nothing but log lines to show for it.
   *
   * @return this controller
   * @throws RequestFailedException if one of those requests failed for good; nothing was started
   */
  public synchronized AggregatorController start() {
    if ((elector != null && elector.running()) || leading) {
      return this;
    }
    if (elector != null) {
      elector.checkAccess();
    }
    feed.checkAccess();
    if (policies != null) {
      startPolicyWatch(policies);
    }
    if (!resyncPeriod.isZero()) {
      thread.every(resyncPeriod, this::periodicResync);
    }
    if (intermediate != null) {
      thread.every(intermediate.adoptionRetry(), ledger::adoptPending);
    }
    if (elector == null) {
      leading = true;
      thread.submit(this::becomeLeader);
      return this;
    }
    elector.campaign();
    return this;
  }

  private void startPolicyWatch(KyvernoPolicyWatch watch) {
    try {
      watch.start(syncTimeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while Kyverno's policies were listed", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kyverno's policies were not listed within " + syncTimeout, e);
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      throw new RequestFailedException("watch Kyverno's policies", e);
    }
  }

  /**
   * Sets which policies and rules are live (a policy removed from the cluster): their results leave
   * the aggregates at the next flush and come back if the policy does. Kept across rebuilds.
   */
  public CompletableFuture<Void> setLiveness(Liveness newLiveness) {
    Objects.requireNonNull(newLiveness, "liveness");
    return thread.run(() -> ledger.setLiveness(newLiveness));
  }

  /** Whether this replica aggregates and writes now. */
  public boolean isLeading() {
    return leading;
  }

  /**
   * Whether this replica leads and has rebuilt since it started leading: its informers synced,
   * their caches applied, the owned aggregates listed and the difference written once (a write that
   * met a conflict is then re-diffed as usual). False while it does not lead, and again from the
   * moment it stops (a lost Lease, {@link #close}).
   */
  public boolean isRebuilt() {
    return scheduler.rebuilt() && leading;
  }

  /**
   * Flushes now rather than at the end of the window, and completes when the writes are done. For
   * tests and for operators that want to flush on their own schedule.
   */
  public CompletableFuture<Void> flushNow() {
    return thread.run(scheduler::flush);
  }

  /** Re-reads the owned aggregates and writes the difference now; completes when done. */
  public CompletableFuture<Void> resyncNow() {
    return thread.run(scheduler::resync);
  }

  /** The desired aggregates as this replica sees them, empty when it does not lead. */
  public CompletableFuture<List<AggregateReport>> desired() {
    return thread.supply(
        () -> {
          ReportAggregator agg = ledger.aggregator();
          return agg == null ? List.<AggregateReport>of() : agg.aggregates();
        });
  }

  /**
   * Stops: no change is written after the one in progress (each write is whole; what the flush had
   * left is the next leader's to write, from its rebuild), the informers and the thread stop, and
   * only then is the Lease released, so that no other replica writes while this one still does.
   * Released means its holder is cleared: another replica takes it at its next retry instead of
   * waiting for the lease to expire.
   */
  @Override
  public void close() {
    closed = true;
    leading = false;
    if (policies != null) {
      policies.close();
    }
    thread.stop(this::stepDown, syncTimeout);
    if (elector != null) {
      elector.close();
    }
  }

  // ------------------------------------------------------------------ on the aggregator thread

  /** Begins a term: a fresh aggregator, fed from the informers, diffed against the cluster. */
  private void becomeLeader() {
    if (!leading || closed) {
      return;
    }
    stepDown();
    leading = true;
    ledger.begin(aggregators.get());
    try {
      feed.start();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (TimeoutException | RuntimeException e) {
      LOG.warn(
          "partial report informers did not sync: {}; retrying",
          RequestFailedException.rootCause(e));
      stepDown();
      if (leading && !closed) {
        thread.schedule(this::becomeLeader, retryPolicy.delay(1, Duration.ZERO, random));
      }
      return;
    }
    // apply the informers' caches before diffing
    feed.applyCaches();
    LOG.info("rebuilt: {} objects (or resources) held", ledger.size());
    scheduler.resync();
  }

  /** Ends the term: nothing more is written, the informers stop, the aggregator is dropped. */
  private void stepDown() {
    scheduler.reset();
    feed.stop();
    ledger.end();
  }

  /**
   * The safety net against a stale informer and against drift in the cluster: expire tombstones,
   * re-list every partial report (see {@link PartialReportFeed#relist}), then re-diff the owned
   * aggregates.
   */
  private void periodicResync() {
    ReportAggregator agg = ledger.aggregator();
    if (agg == null || !feed.running() || !leading) {
      return;
    }
    agg.expireTombstones(now());
    if (feed.relist()) {
      scheduler.resync();
    }
  }

  /** The aggregator changed. */
  private void changed() {
    scheduler.scheduleFlush();
  }

  /** A task of the aggregator thread failed. */
  private void taskFailed() {
    scheduler.taskFailed();
  }

  private Timestamp now() {
    Instant i = clock.instant();
    return new Timestamp(Math.max(0, i.getEpochSecond()), i.getNano());
  }

  /** Configures an {@link AggregatorController}. */
  public static final class Builder extends ApiClientBuilder<Builder> {
    private @Nullable Supplier<ReportAggregator> aggregators;
    private Clock clock = Clock.systemUTC();
    private LongSupplier nanoTicker = System::nanoTime;
    private Duration flushWindow = Duration.ofMillis(500);
    private Duration resyncPeriod = Duration.ofMinutes(10);
    private Duration minResyncInterval = Duration.ofSeconds(30);
    private Duration syncTimeout = Duration.ofSeconds(60);
    private Duration maxClockSkew = ClockRule.DEFAULT_MAX_SKEW;
    private boolean serverSideApply;
    private boolean emitEvents = true;
    private @Nullable LeaderElectionSettings election;
    private @Nullable KyvernoInput kyverno;

    private Builder(KubernetesClient client) {
      super(client);
    }

    /**
     * How to make a fresh aggregator: called on start and on each won Lease, because the state is
     * rebuilt from the partial reports each time.
     */
    public Builder aggregator(Supplier<ReportAggregator> aggregators) {
      this.aggregators = aggregators;
      return this;
    }

    /** Where deletion times and tombstone expiry come from. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** Measures flush durations. */
    public Builder nanoTicker(LongSupplier nanoTicker) {
      this.nanoTicker = nanoTicker;
      return this;
    }

    /** How long to gather changes before a flush writes them; 500 ms by default. */
    public Builder flushWindow(Duration flushWindow) {
      this.flushWindow = flushWindow;
      return this;
    }

    /** How often to re-read everything as a safety net; 10 minutes by default, zero for never. */
    public Builder resyncPeriod(Duration resyncPeriod) {
      this.resyncPeriod = resyncPeriod;
      return this;
    }

    /**
     * How far ahead of this process's clock an evaluation may be observed, or a result stamped; a
     * later one is refused with an Event naming the field (docs/DESIGN.md, the clock rule). 5
     * minutes by default.
     */
    public Builder maxClockSkew(Duration maxClockSkew) {
      this.maxClockSkew = ClockRule.allowing(maxClockSkew).maxSkew();
      return this;
    }

    /**
     * The least time between two full resyncs (a LIST of every owned aggregate) that trouble asks
     * for (a failed task, many failed writes); 30 seconds by default. The first resync of a term
     * and the periodic one are not held back. Writes that meet a conflict re-read only their
     * objects and are not resyncs.
     */
    public Builder minResyncInterval(Duration minResyncInterval) {
      this.minResyncInterval = Objects.requireNonNull(minResyncInterval, "minResyncInterval");
      return this;
    }

    /** How long to wait for the informers' first list. */
    public Builder syncTimeout(Duration syncTimeout) {
      this.syncTimeout = syncTimeout;
      return this;
    }

    /** Write with server-side apply (field manager {@code tally}) instead of update. */
    public Builder serverSideApply(boolean serverSideApply) {
      this.serverSideApply = serverSideApply;
      return this;
    }

    /** Record a Kubernetes Event on each rejected partial report; on by default. */
    public Builder emitEvents(boolean emitEvents) {
      this.emitEvents = emitEvents;
      return this;
    }

    /** Elect a leader with a Lease; without it this replica always leads. */
    public Builder leaderElection(LeaderElectionSettings election) {
      this.election = election;
      return this;
    }

    /**
     * Read Kyverno's intermediate reports instead of Tally's partial reports, and handle them as
     * {@code kyverno} says. {@link KyvernoInput.Lifecycle#DELETE_AFTER_MERGE} needs the aggregator
     * to write in Kyverno's layout ({@code Grouping.kyvernoPerResource()}), whose reports are then
     * the state: {@link #build} refuses another grouping.
     */
    public Builder input(KyvernoInput kyverno) {
      this.kyverno = Objects.requireNonNull(kyverno, "kyverno");
      return this;
    }

    /**
     * @throws IllegalArgumentException if Kyverno's reports are to be deleted after merging and the
     *     aggregator does not write in Kyverno's layout
     */
    public AggregatorController build() {
      if (kyverno != null
          && kyverno.lifecycle() == KyvernoInput.Lifecycle.DELETE_AFTER_MERGE
          && aggregators != null
          && aggregators.get().config().grouping().layout() != ReportLayout.KYVERNO) {
        throw new IllegalArgumentException(
            "deleting Kyverno's intermediate reports after merging needs the aggregator to write"
                + " in Kyverno's layout (Grouping.kyvernoPerResource()): its reports are then the"
                + " state");
      }
      return new AggregatorController(this);
    }
  }
}
