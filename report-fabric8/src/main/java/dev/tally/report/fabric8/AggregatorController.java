package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.input.InputContext;
import dev.tally.report.fabric8.input.InputLifecycle;
import dev.tally.report.fabric8.input.LivenessWatch;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.partials.PartialReportsInput;
import dev.tally.report.merge.ClockRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
  private final InputLifecycle lifecycle;
  private final @Nullable LivenessWatch policies;
  private final LongSupplier nanoTicker;
  private final Duration stallBound;
  private final FreshnessTracker freshness;
  private final CompletableFuture<Void> failure = new CompletableFuture<>();

  private volatile boolean leading;
  private volatile boolean closed;
  private volatile boolean started;

  /** When the periodic resync last ran (or the controller started). */
  private volatile long periodicRanAt;

  private AggregatorController(Builder b) {
    this.aggregators = Objects.requireNonNull(b.aggregators, "aggregator");
    this.retryPolicy = b.retryPolicy;
    this.random = new Random(b.seed);
    this.clock = b.clock;
    this.resyncPeriod = b.resyncPeriod;
    this.syncTimeout = b.syncTimeout;
    this.nanoTicker = b.nanoTicker;
    this.stallBound = b.stallBound;
    this.periodicRanAt = b.nanoTicker.getAsLong();
    this.freshness = new FreshnessTracker(b.nanoTicker);
    b.metrics.freshness(this::freshness);
    ApiCalls calls = b.calls(random);
    // the thread and the ledger call the scheduler back, which needs both: through this
    this.thread = new AggregatorThread(this::taskFailed, this::fatal, b.nanoTicker);
    calls.onProgress(thread::progress);
    ReportInput input = b.input;
    RefusedCopies copies = new RefusedCopies(b.maxRefusedCopiesPerNamespace, b.maxRefusedCopies);
    ClockRule clockRule = ClockRule.allowing(b.maxClockSkew);
    this.lifecycle =
        input.lifecycle(
            new InputContext(b.client, calls, b.metrics, b.clock, clockRule, this::now));
    this.ledger =
        new PartialReportLedger(
            input,
            lifecycle,
            new RejectionEvents(b.client, calls, b.metrics, b.clock, b.emitEvents),
            copies,
            b.metrics,
            this::now,
            clockRule,
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
            b.minResyncInterval,
            this::leaseHeld,
            freshness);
    this.feed =
        new PartialReportFeed(
            b.client,
            calls,
            input,
            thread,
            ledger,
            b.syncTimeout,
            task -> freshness.input(task, scheduler::writeDue),
            copies);
    this.policies =
        input
            .livenessWatch(b.client, liveness -> thread.submit(() -> ledger.setLiveness(liveness)))
            .orElse(null);
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
                },
                b.nanoTicker);
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
    if (closed) {
      throw new IllegalStateException(
          thread.fatal() != null ? "stopped after a fatal error: " + thread.fatal() : "closed");
    }
    if (elector != null) {
      elector.checkAccess();
    }
    feed.checkAccess();
    periodicRanAt = nanoTicker.getAsLong();
    started = true;
    if (policies != null) {
      startPolicyWatch(policies);
    }
    if (!resyncPeriod.isZero()) {
      thread.every(resyncPeriod, this::periodicResync);
    }
    lifecycle.adoptionRetry().ifPresent(every -> thread.every(every, ledger::adoptPending));
    if (elector == null) {
      leading = true;
      thread.submit(this::becomeLeader);
      return this;
    }
    elector.campaign();
    return this;
  }

  private void startPolicyWatch(LivenessWatch watch) {
    try {
      watch.start(syncTimeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + watch.what() + " were listed", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException(watch.what() + " were not listed within " + syncTimeout, e);
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      throw new RequestFailedException("watch " + watch.what(), e);
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

  /**
   * Completes exceptionally with the {@link Error} (such as an {@link OutOfMemoryError}) that a
   * task of the aggregator thread or one of its timers threw, once the controller has stopped for
   * it: the state that task was changing is unknown, so the controller writes nothing more, closes
   * itself (releasing the Lease, so that a standby takes over at once) and only then completes
   * this. A program ends the process then, with a failure status ({@code tally-aggregator} exits
   * 1), so that it is restarted; a library that keeps running has a closed controller. Completes
   * normally when the controller is closed without such an error.
   */
  public CompletableFuture<Void> failure() {
    return failure;
  }

  /**
   * Why the aggregator thread or its periodic work is not alive, or empty while it is: the thread
   * stopped after an {@link Error} (see {@link #failure()}); a task on it has shown no progress (no
   * API request or backoff began, it did not end) for longer than the stall bound ({@link
   * Builder#stallBound}); or, with a periodic resync, that resync has not run for its period plus
   * the stall bound. A liveness probe answers from this ({@code /healthz} of {@code
   * tally-aggregator}), so that a process whose controller froze is restarted.
   */
  public Optional<String> stalled() {
    Error fatal = thread.fatal();
    if (fatal != null) {
      return Optional.of("the aggregator thread stopped after " + fatal);
    }
    Duration stuck = thread.stalledFor();
    if (stuck.compareTo(stallBound) > 0) {
      return Optional.of(
          "a task of the aggregator thread has made no progress for "
              + stuck
              + " (the bound is "
              + stallBound
              + ")");
    }
    if (started && !closed && !resyncPeriod.isZero()) {
      Duration since = Duration.ofNanos(Math.max(0, nanoTicker.getAsLong() - periodicRanAt));
      if (since.compareTo(resyncPeriod.plus(stallBound)) > 0) {
        return Optional.of(
            "the periodic resync has not run for "
                + since
                + " (its period is "
                + resyncPeriod
                + ", the bound "
                + stallBound
                + " more)");
      }
    }
    return Optional.empty();
  }

  /**
   * How fresh the aggregates are now; {@link Freshness#NOT_LEADING} on a replica that does not
   * lead.
   */
  public Freshness freshness() {
    return leading ? freshness.freshness() : Freshness.NOT_LEADING;
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
    closeQuietly();
    failure.complete(null);
  }

  private void closeQuietly() {
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
    freshness.term(true);
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
    freshness.term(false);
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
    periodicRanAt = nanoTicker.getAsLong();
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

  /**
   * A task of the aggregator thread threw an {@link Error}: stop writing at once, then close (from
   * another thread: closing waits for the aggregator thread) and report it through {@link
   * #failure()}.
   */
  private void fatal(Error error) {
    leading = false;
    closed = true;
    Thread closing =
        new Thread(
            () -> {
              try {
                closeQuietly();
              } finally {
                failure.completeExceptionally(error);
              }
            },
            "tally-aggregator-fatal");
    closing.setDaemon(true);
    closing.start();
  }

  /** Whether, without leader election, always; with it, the Lease is known to be held still. */
  private boolean leaseHeld() {
    LeaderElector e = elector;
    return e == null || e.withinRenewDeadline();
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
    private Duration stallBound = Duration.ofMinutes(3);
    private boolean serverSideApply;
    private boolean emitEvents = true;
    private @Nullable LeaderElectionSettings election;
    private ReportInput input = new PartialReportsInput();
    private int maxRefusedCopiesPerNamespace = RefusedCopies.DEFAULT_MAX_PER_NAMESPACE;
    private int maxRefusedCopies = RefusedCopies.DEFAULT_MAX;

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

    /**
     * Measures flush durations, the heartbeat of the aggregator thread ({@link #stallBound}), the
     * {@link Freshness} and the Lease's renew deadline.
     */
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

    /**
     * How long a task of the aggregator thread may show no progress (no API request or backoff
     * begins, it does not end) before {@link #stalled()} says the controller is stuck; 3 minutes by
     * default, more than one request's worst backoff (Retry-After is honoured up to a minute).
     * Measured on the {@link #nanoTicker}.
     */
    public Builder stallBound(Duration stallBound) {
      if (stallBound.isNegative() || stallBound.isZero()) {
        throw new IllegalArgumentException("stallBound: must be positive, was " + stallBound);
      }
      this.stallBound = stallBound;
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

    /**
     * Caps on what the informers hold of the objects refused (docs/DESIGN.md, section 9, "Caps"):
     * each is held as its identity alone (a stripped copy, at most about 2 KiB), at most {@code
     * perNamespace} of them in one namespace and {@code total} in all (1,000 and 20,000 by
     * default). Past a cap nothing is held for a refused object (a Warning Event {@code NotHeld}
     * naming the cap, {@link TallyMetrics#capacityReached}); its deletion is then seen by the next
     * periodic re-list.
     */
    public Builder maxRefusedCopies(int perNamespace, int total) {
      if (perNamespace < 1 || total < 1) {
        throw new IllegalArgumentException(
            "maxRefusedCopies must be at least 1, was " + perNamespace + " and " + total);
      }
      this.maxRefusedCopiesPerNamespace = perNamespace;
      this.maxRefusedCopies = total;
      return this;
    }

    /** Elect a leader with a Lease; without it this replica always leads. */
    public Builder leaderElection(LeaderElectionSettings election) {
      this.election = election;
      return this;
    }

    /**
     * What to read: Tally's own partial reports ({@link PartialReportsInput}) by default, or
     * another input such as {@link dev.tally.report.fabric8.kyverno.KyvernoInput} (Kyverno's
     * intermediate reports) or {@link dev.tally.report.fabric8.trivy.TrivyInput} (trivy-operator's
     * config audit reports). {@link #build} asks the input whether it can feed the aggregator
     * ({@link ReportInput#checkAggregator}).
     */
    public Builder input(ReportInput input) {
      this.input = Objects.requireNonNull(input, "input");
      return this;
    }

    /**
     * @throws IllegalArgumentException if the input cannot feed the aggregator (say, Kyverno's
     *     reports are to be deleted after merging and the aggregator does not write in Kyverno's
     *     layout)
     */
    public AggregatorController build() {
      if (aggregators != null) {
        input.checkAggregator(aggregators.get().config());
      }
      return new AggregatorController(this);
    }
  }
}
