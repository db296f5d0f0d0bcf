package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.input.InputContext;
import dev.tally.report.fabric8.input.InputServices;
import dev.tally.report.fabric8.input.LivenessWatch;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.input.StatementSource;
import dev.tally.report.fabric8.input.SubjectAdoption;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.metrics.Freshness;
import dev.tally.report.merge.publish.ClockRule;
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
 * (the Lease), {@link AggregatorThread} (the one thread), {@link InputFeed} (informers and
 * re-lists), {@link InputLedger} (what the aggregator was fed, with the pure {@code SubjectIndex}
 * deciding deletions), {@link RejectionEvents} (what a refusal shows) and {@link WriteScheduler}
 * (flushes and resyncs).
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
  private final InputLedger ledger;
  private final WriteScheduler scheduler;
  private final InputFeed feed;
  private final InputServices services;
  private final @Nullable StatementSource source;
  private final @Nullable LivenessWatch policies;
  private final StallRule stalls;
  private final FreshnessTracker freshness;
  private final CompletableFuture<Void> failure = new CompletableFuture<>();

  private volatile boolean leading;
  private volatile boolean closed;
  private volatile boolean started;

  private AggregatorController(Builder b) {
    this.aggregators = Objects.requireNonNull(b.aggregators, "aggregator");
    this.retryPolicy = b.retries();
    this.random = new Random(b.jitterSeed());
    this.clock = b.clock;
    this.resyncPeriod = b.resyncPeriod;
    this.syncTimeout = b.syncTimeout;
    this.freshness = new FreshnessTracker(b.nanoTicker);
    b.tallyMetrics().freshness(this::freshness);
    ApiCalls calls = b.requests(random);
    // the thread and the ledger call the scheduler back, which needs both: through this
    this.thread = new AggregatorThread(this::taskFailed, this::fatal, b.nanoTicker);
    this.stalls = new StallRule(thread, b.stallBound, b.resyncPeriod, b.nanoTicker);
    calls.onProgress(thread::progress);
    ReportInput input = b.input;
    InformerStores copies = new InformerStores(b.maxRefusedCopiesPerNamespace, b.maxRefusedCopies);
    ClockRule clockRule = ClockRule.allowing(b.maxClockSkew);
    InputContext context =
        new InputContext(b.kube(), calls, b.tallyMetrics(), b.clock, clockRule, this::now);
    this.services = input.services(context);
    this.source = input.statementSource(context).orElse(null);
    RejectionEvents rejections =
        new RejectionEvents(b.kube(), calls, b.tallyMetrics(), b.clock, b.emitEvents);
    this.ledger =
        new InputLedger(
            input,
            services,
            source,
            rejections,
            copies,
            b.tallyMetrics(),
            this::now,
            clockRule,
            this::changed);
    this.scheduler =
        new WriteScheduler(
            thread,
            ledger,
            new ReportWriter(b.kube(), calls, b.tallyMetrics(), b.serverSideApply, input.name()),
            rejections,
            b.tallyMetrics(),
            b.nanoTicker,
            b.retries(),
            random,
            b.flushWindow,
            () -> leading,
            () -> closed,
            b.minResyncInterval,
            this::leaseHeld,
            freshness);
    this.feed =
        new InputFeed(
            b.kube(),
            calls,
            input,
            thread,
            ledger,
            b.syncTimeout,
            task -> freshness.input(task, scheduler::writeDue),
            copies);
    this.policies =
        input
            .livenessWatch(b.kube(), liveness -> thread.submit(() -> ledger.setLiveness(liveness)))
            .orElse(null);
    this.elector =
        b.election == null
            ? null
            : new LeaderElector(
                b.kube(),
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
    stalls.periodicRan();
    started = true;
    if (policies != null) {
      policies.startWithin(syncTimeout);
    }
    if (!resyncPeriod.isZero()) {
      thread.every(resyncPeriod, this::periodicResync);
    }
    SubjectAdoption adoption = services.adoption();
    if (adoption != null) {
      thread.every(adoption.retryEvery(), ledger::adoptPending);
    }
    if (source != null) {
      thread.every(source.period(), ledger::pollSource);
    }
    if (elector == null) {
      leading = true;
      thread.submit(this::becomeLeader);
      return this;
    }
    elector.campaign();
    return this;
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
   * ControllerSettings#stallBound}); or, with a periodic resync, that resync has not run for its
   * period plus the stall bound. A liveness probe answers from this ({@code /healthz} of {@code
   * tally-aggregator}), so that a process whose controller froze is restarted.
   */
  public Optional<String> stalled() {
    return stalls.stalled(started && !closed);
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
      LOG.warn("input informers did not sync: {}; retrying", RequestFailedException.rootCause(e));
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
   * re-list every partial report (see {@link InputFeed#relist}), then re-diff the owned aggregates.
   */
  private void periodicResync() {
    stalls.periodicRan();
    ReportAggregator agg = ledger.aggregator();
    if (agg == null || !feed.running() || !leading) {
      return;
    }
    agg.expireTombstones(now());
    if (feed.relist()) {
      scheduler.resync();
    }
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

  /** The aggregator changed. */
  private void changed() {
    scheduler.scheduleFlush();
  }

  /** A task of the aggregator thread failed. */
  private void taskFailed() {
    scheduler.taskFailed();
  }

  /** Whether, without leader election, always; with it, the Lease is known to be held still. */
  private boolean leaseHeld() {
    LeaderElector e = elector;
    return e == null || e.withinRenewDeadline();
  }

  private Timestamp now() {
    Instant i = clock.instant();
    return new Timestamp(Math.max(0, i.getEpochSecond()), i.getNano());
  }

  /**
   * Configures an {@link AggregatorController}: the settings are {@link ControllerSettings}' (what
   * it aggregates and reads, whether it elects a leader, how it paces, retries and bounds its
   * work); this class checks them together and builds.
   */
  public static final class Builder extends ControllerSettings<Builder> {
    private Builder(KubernetesClient client) {
      super(client);
    }

    /**
     * @throws IllegalArgumentException if the aggregator does not name the input read as its own
     *     ({@link AggregatorConfig#input()} is not {@link ReportInput#name()}; in Kyverno's layout,
     *     which names no input, it may be the default), or the input cannot feed the aggregator
     *     (say, Kyverno's reports are to be deleted after merging and the aggregator does not write
     *     in Kyverno's layout)
     */
    public AggregatorController build() {
      if (aggregators != null) {
        AggregatorConfig config = aggregators.get().config();
        checkInput(config, input.name());
        input.checkAggregator(config);
      }
      return new AggregatorController(this);
    }

    /**
     * An aggregator owns the aggregates of its input only (docs/DESIGN.md §6.8): one fed from
     * another input would take that input's aggregates for its own, and two releases of different
     * inputs would rewrite and delete each other's.
     */
    private static void checkInput(AggregatorConfig config, String name) {
      if (config.input().equals(name)
          || config.hasDefaultInput()
              && !AggregatorConfig.layoutOf(config.grouping()).namesItsWriter()) {
        return;
      }
      throw new IllegalArgumentException(
          "the aggregator's input is '"
              + config.input()
              + "' and the controller reads '"
              + name
              + "': build the aggregator with ReportAggregator.builder().input(\""
              + name
              + "\"), so that it writes and owns that input's aggregates only");
    }
  }
}
