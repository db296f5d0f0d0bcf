package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.SubjectIndex;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 */
public final class AggregatorController implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AggregatorController.class);

  private final KubernetesClient client;
  private final Supplier<ReportAggregator> aggregators;
  private final ReportWriter writer;
  private final ApiCalls calls;
  private final RetryPolicy retryPolicy;
  private final Random random;
  private final TallyMetrics metrics;
  private final Clock clock;
  private final LongSupplier nanoTicker;
  private final Duration flushWindow;
  private final Duration resyncPeriod;
  private final Duration syncTimeout;
  private final boolean emitEvents;
  private final @Nullable LeaderElectionSettings election;
  private final ScheduledExecutorService executor;

  private volatile boolean leading;
  private volatile boolean rebuilt;
  private volatile boolean closed;
  private @Nullable Future<?> elector;

  // confined to the executor thread
  private @Nullable ReportAggregator aggregator;
  private @Nullable PartialReportSource source;
  private final SubjectIndex subjects = new SubjectIndex();

  /** The resourceVersion of each partial report object last handled, to handle each once. */
  private final Map<String, String> handledVersions = new HashMap<>();

  private Liveness liveness = Liveness.all();
  private boolean flushScheduled;
  private boolean resyncNeeded;
  private int resyncAttempts;

  private AggregatorController(Builder b) {
    this.client = b.client;
    this.aggregators = Objects.requireNonNull(b.aggregators, "aggregator");
    this.metrics = b.metrics;
    this.retryPolicy = b.retryPolicy;
    this.random = new Random(b.seed);
    this.calls = b.calls(random);
    this.writer = new ReportWriter(b.client, calls, b.metrics, b.serverSideApply);
    this.clock = b.clock;
    this.nanoTicker = b.nanoTicker;
    this.flushWindow = b.flushWindow;
    this.resyncPeriod = b.resyncPeriod;
    this.syncTimeout = b.syncTimeout;
    this.emitEvents = b.emitEvents;
    this.election = b.election;
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tally-aggregator");
              t.setDaemon(true);
              return t;
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
    if (elector != null || leading) {
      return this;
    }
    checkAccess();
    if (!resyncPeriod.isZero()) {
      executor.scheduleWithFixedDelay(
          this::periodicResync,
          resyncPeriod.toNanos(),
          resyncPeriod.toNanos(),
          TimeUnit.NANOSECONDS);
    }
    if (election == null) {
      leading = true;
      submit(this::becomeLeader);
      return this;
    }
    campaign();
    return this;
  }

  /** The first requests of {@link #start}, made now so that a refusal is the caller's to see. */
  private void checkAccess() {
    if (election != null) {
      String what = "get lease " + election.namespace() + "/" + election.leaseName();
      try {
        // absent is fine (the elector creates it); refused is not
        calls.call(
            what,
            () ->
                client
                    .leases()
                    .inNamespace(election.namespace())
                    .withName(election.leaseName())
                    .get());
      } catch (KubernetesClientException e) {
        throw new RequestFailedException(what, e);
      }
    }
    String what = "list partialreports";
    try {
      calls.call(
          what,
          () ->
              client
                  .resources(PartialReportResource.class)
                  .inAnyNamespace()
                  .list(new ListOptionsBuilder().withLimit(1L).build()));
    } catch (KubernetesClientException e) {
      throw new RequestFailedException(what, e);
    }
  }

  /**
   * Runs for the Lease. fabric8's elector ends once this replica loses the lease, so a replica that
   * lost it (or never won) stands again, after the retry period.
   */
  private synchronized void campaign() {
    LeaderElectionSettings e = Objects.requireNonNull(election);
    if (closed) {
      return;
    }
    var config =
        new LeaderElectionConfigBuilder()
            .withName("tally-aggregator")
            .withLock(new LeaseLock(e.namespace(), e.leaseName(), e.identity()))
            .withLeaseDuration(e.leaseDuration())
            .withRenewDeadline(e.renewDeadline())
            .withRetryPeriod(e.retryPeriod())
            .withReleaseOnCancel(true)
            .withLeaderCallbacks(
                new LeaderCallbacks(
                    () -> {
                      LOG.info("{} won the lease", e.identity());
                      leading = true;
                      submit(this::becomeLeader);
                    },
                    () -> {
                      LOG.info("{} lost the lease: stop writing", e.identity());
                      leading = false;
                      submit(this::stepDown);
                    },
                    leader -> LOG.info("the leader is now {}", leader)))
            .build();
    CompletableFuture<?> running = client.leaderElector().withConfig(config).build().start();
    elector = running;
    running.whenComplete(
        (ignored, failure) -> {
          if (failure != null && !closed) {
            LOG.warn(
                "leader election for lease {}/{} failed: {}",
                e.namespace(),
                e.leaseName(),
                RequestFailedException.rootCause(failure));
          }
          if (!closed) {
            LOG.info("{} stands for the lease again", e.identity());
            CompletableFuture.runAsync(
                this::campaign,
                CompletableFuture.delayedExecutor(e.retryPeriod().toNanos(), TimeUnit.NANOSECONDS));
          }
        });
  }

  /**
   * Sets which policies and rules are live (a policy removed from the cluster): their results leave
   * the aggregates at the next flush and come back if the policy does. Kept across rebuilds.
   */
  public CompletableFuture<Void> setLiveness(Liveness newLiveness) {
    Objects.requireNonNull(newLiveness, "liveness");
    return CompletableFuture.runAsync(
        () -> {
          liveness = newLiveness;
          if (aggregator != null) {
            aggregator.setLiveness(newLiveness);
            scheduleFlush();
          }
        },
        executor);
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
    return rebuilt && leading;
  }

  /**
   * Flushes now rather than at the end of the window, and completes when the writes are done. For
   * tests and for operators that want to flush on their own schedule.
   */
  public CompletableFuture<Void> flushNow() {
    return CompletableFuture.runAsync(this::flushTask, executor);
  }

  /** Re-reads the owned aggregates and writes the difference now; completes when done. */
  public CompletableFuture<Void> resyncNow() {
    return CompletableFuture.runAsync(this::resync, executor);
  }

  /** The desired aggregates as this replica sees them, empty when it does not lead. */
  public CompletableFuture<List<AggregateReport>> desired() {
    return CompletableFuture.supplyAsync(
        () -> aggregator == null ? List.<AggregateReport>of() : aggregator.aggregates(), executor);
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
    try {
      executor.submit(this::stepDown).get(syncTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception ex) {
      LOG.debug("step down on close did not finish: {}", ex.toString());
    }
    executor.shutdownNow();
    Future<?> e;
    synchronized (this) {
      e = elector;
      elector = null;
    }
    if (e != null) {
      e.cancel(true);
      releaseLease(Objects.requireNonNull(election));
    }
  }

  /**
   * Clears the Lease's holder if it is still this replica. fabric8's release on cancel only cuts
   * the lease's duration to 1 s: it sends the cleared holder in a merge patch, which drops a null.
   */
  private void releaseLease(LeaderElectionSettings e) {
    String what = "release lease " + e.namespace() + "/" + e.leaseName();
    try {
      boolean released =
          calls.call(
              what,
              () -> {
                var lease =
                    client.leases().inNamespace(e.namespace()).withName(e.leaseName()).get();
                if (lease == null
                    || lease.getSpec() == null
                    || !e.identity().equals(lease.getSpec().getHolderIdentity())) {
                  return false;
                }
                lease.getSpec().setHolderIdentity(null);
                // an update with the resourceVersion read: a replica that took the Lease in
                // between keeps it (409)
                client.leases().inNamespace(e.namespace()).resource(lease).update();
                return true;
              });
      if (released) {
        LOG.info("{} released the lease {}/{}", e.identity(), e.namespace(), e.leaseName());
      }
    } catch (RuntimeException ex) {
      // a refused or failed request, or a client closed under this controller (the process is
      // going away): close() never throws for it; the Lease expires within its duration
      LOG.warn(
          "{} could not release the lease {}/{}: {}; it expires within its duration",
          e.identity(),
          e.namespace(),
          e.leaseName(),
          RequestFailedException.rootCause(ex));
    }
  }

  // ------------------------------------------------------------------ on the executor thread

  private void becomeLeader() {
    if (!leading || closed) {
      return;
    }
    stepDown();
    leading = true;
    aggregator = aggregators.get();
    aggregator.setLiveness(liveness);
    var src =
        new PartialReportSource(
            client,
            new PartialReportSource.Listener() {
              @Override
              public void upsert(CustomResource<PartialReportSpec, Void> resource) {
                submit(() -> onUpsert(resource));
              }

              @Override
              public void removed(CustomResource<PartialReportSpec, Void> resource) {
                submit(() -> onRemoved(resource));
              }
            });
    source = src;
    try {
      src.start(syncTimeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (TimeoutException | RuntimeException e) {
      LOG.warn(
          "partial report informers did not sync: {}; retrying",
          RequestFailedException.rootCause(e));
      stepDown();
      if (leading && !closed) {
        schedule(this::becomeLeader, retryPolicy.delay(1, Duration.ZERO, random));
      }
      return;
    }
    // apply the informers' caches before diffing; the ADD events queued behind this task will
    // re-apply the same reports, which changes nothing
    for (var resource : src.snapshot()) {
      onUpsert(resource);
    }
    LOG.info("rebuilt from {} partial reports", subjects.size());
    resync();
  }

  private void stepDown() {
    rebuilt = false;
    if (source != null) {
      source.close();
      source = null;
    }
    aggregator = null;
    subjects.clear();
    handledVersions.clear();
    writer.forget();
    resyncNeeded = false;
    resyncAttempts = 0;
  }

  private void onUpsert(CustomResource<PartialReportSpec, Void> resource) {
    ReportAggregator agg = aggregator;
    if (agg == null) {
      return;
    }
    String key = key(resource);
    String version = Objects.requireNonNullElse(resource.getMetadata().getResourceVersion(), "");
    if (version.equals(handledVersions.put(key, version))) {
      return; // the informer's cache and its events both deliver every object: once is enough
    }
    PartialReport partial;
    try {
      Evaluation evaluation = ReportCodec.decodePartial(resource);
      if (!evaluation.adopted()) {
        LOG.debug("{} waits for its subject to be adopted", key);
        return;
      }
      partial = evaluation.toPartialReport();
    } catch (InvalidReportException e) {
      reject(resource, e, e.field().endsWith("namespace") ? "namespace" : "invalid");
      return;
    }
    String uid = partial.subject().uid();
    try {
      agg.apply(partial);
    } catch (CapacityExceededException e) {
      reject(resource, e, "capacity");
      return;
    } catch (InvalidReportException e) {
      reject(resource, e, "invalid");
      return;
    }
    metrics.partialApplied();
    // the same producer and subject name about a new uid: the old subject may be gone
    subjects.upsert(key, uid, partial.observedAt()).ifPresent(this::deleteSubject);
    scheduleFlush();
  }

  private void onRemoved(CustomResource<PartialReportSpec, Void> resource) {
    if (aggregator == null) {
      return;
    }
    String key = key(resource);
    handledVersions.remove(key);
    if (subjects.contains(key)) {
      subjects.remove(key).ifPresent(this::deleteSubject);
      scheduleFlush();
    }
  }

  /**
   * The last partial report about a subject is gone (garbage collection removes partial reports
   * with their subject): {@link SubjectIndex} decided that and the time, given now.
   */
  private void deleteSubject(SubjectIndex.Deletion deletion) {
    Timestamp deletedAt = deletion.at(now());
    Objects.requireNonNull(aggregator).deleteSubject(deletion.uid(), deletedAt);
    LOG.debug("subject {} deleted at {}", deletion.uid(), deletedAt);
  }

  private void scheduleFlush() {
    if (!flushScheduled) {
      flushScheduled = true;
      schedule(this::flushTask, flushWindow);
    }
  }

  private void flushTask() {
    flushScheduled = false;
    ReportAggregator agg = aggregator;
    if (agg == null || !leading) {
      return;
    }
    if (resyncNeeded) {
      resync();
      return;
    }
    long start = nanoTicker.getAsLong();
    ChangeSet changes = agg.flush();
    if (changes.isEmpty()) {
      return;
    }
    WriteOutcome outcome = writer.write(changes, () -> leading && !closed);
    metrics.flushed(changes.size(), Duration.ofNanos(nanoTicker.getAsLong() - start));
    LOG.debug("flushed {} changes: {}", changes.size(), outcome);
    afterWrite(outcome);
  }

  private void resync() {
    ReportAggregator agg = aggregator;
    if (agg == null || !leading) {
      return;
    }
    WriteOutcome outcome;
    try {
      List<AggregateReport> observed = writer.listOwned(agg.config().format());
      ChangeSet changes = agg.resync(observed);
      metrics.resynced(changes.size());
      LOG.info("resync against {} owned aggregates: {} changes", observed.size(), changes.size());
      outcome = writer.write(changes, () -> leading && !closed);
    } catch (KubernetesClientException e) {
      LOG.warn("resync failed: {}", RequestFailedException.rootCause(e));
      outcome = new WriteOutcome(0, 0, List.of(), List.of(), List.of(), false);
      resyncNeeded = true;
      scheduleResync();
      return;
    }
    resyncNeeded = false;
    // the first resync that listed and diffed completes a rebuild
    rebuilt = leading && !closed;
    afterWrite(outcome);
  }

  private void afterWrite(WriteOutcome outcome) {
    if (outcome.stopped()) {
      return;
    }
    if (!outcome.conflicts().isEmpty() || !outcome.failed().isEmpty()) {
      LOG.info(
          "{} conflicts and {} failed writes: re-read and re-diff",
          outcome.conflicts().size(),
          outcome.failed().size());
      resyncNeeded = true;
      scheduleResync();
    } else {
      resyncAttempts = 0;
    }
  }

  private void scheduleResync() {
    resyncAttempts++;
    Duration delay = outcomeDelay(resyncAttempts);
    schedule(
        () -> {
          if (resyncNeeded) {
            resync();
          }
        },
        delay);
  }

  private Duration outcomeDelay(int attempt) {
    // a first conflict is re-read at once; repeated trouble backs off
    return attempt <= 1 ? Duration.ZERO : retryPolicy.delay(attempt - 1, Duration.ZERO, random);
  }

  /**
   * The safety net against a stale informer (a watch that missed a deletion while it reconnected)
   * and against drift in the cluster: LIST every partial report afresh, apply what is newer, forget
   * what is gone, then re-diff the owned aggregates.
   *
   * <p>This runs on the aggregator thread, so every object it tracks was handled before the LIST
   * began: one missing from the LIST was deleted. One created after the LIST is still queued as an
   * event and arrives next.
   */
  private void periodicResync() {
    ReportAggregator agg = aggregator;
    if (agg == null || source == null || !leading) {
      return;
    }
    agg.expireTombstones(now());
    List<CustomResource<PartialReportSpec, Void>> listed = new ArrayList<>();
    try {
      listed.addAll(
          PagedList.all(
              calls,
              "list partialreports",
              options ->
                  client.resources(PartialReportResource.class).inAnyNamespace().list(options)));
      listed.addAll(
          PagedList.all(
              calls,
              "list clusterpartialreports",
              options -> client.resources(ClusterPartialReportResource.class).list(options)));
    } catch (KubernetesClientException e) {
      LOG.warn("periodic re-list failed: {}", RequestFailedException.rootCause(e));
      return;
    }
    Set<String> present = new HashSet<>();
    for (var resource : listed) {
      present.add(key(resource));
      onUpsert(resource);
    }
    int forgotten = 0;
    for (String key : List.copyOf(handledVersions.keySet())) {
      if (!present.contains(key)) {
        handledVersions.remove(key);
        if (subjects.contains(key)) {
          subjects.remove(key).ifPresent(this::deleteSubject);
          forgotten++;
        }
      }
    }
    if (forgotten > 0) {
      LOG.info("{} partial reports were deleted without an event reaching us", forgotten);
      scheduleFlush();
    }
    resync();
  }

  private void reject(
      CustomResource<PartialReportSpec, Void> resource, InvalidReportException e, String reason) {
    metrics.partialRejected(reason);
    String key = key(resource);
    LOG.warn("rejected {}: {}", key, e.getMessage());
    if (!emitEvents) {
      return;
    }
    String version = key + "@" + resource.getMetadata().getResourceVersion();
    var meta = resource.getMetadata();
    String namespace =
        meta.getNamespace() == null || meta.getNamespace().isEmpty()
            ? "default"
            : meta.getNamespace();
    String message = e.getMessage();
    if (message.length() > 1000) {
      message = message.substring(0, 1000);
    }
    String time = Instant.now(clock).toString();
    var event =
        new EventBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(meta.getName() + "." + KubernetesNames.digest(version, 12))
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withApiVersion(resource.getApiVersion())
                    .withKind(resource.getKind())
                    .withNamespace(meta.getNamespace())
                    .withName(meta.getName())
                    .withUid(meta.getUid())
                    .withResourceVersion(meta.getResourceVersion())
                    .build())
            .withType("Warning")
            .withReason("Rejected")
            .withMessage(message)
            .withNewSource()
            .withComponent("tally-aggregator")
            .endSource()
            .withFirstTimestamp(time)
            .withLastTimestamp(time)
            .withCount(1)
            .build();
    try {
      calls.call("event " + key, () -> client.v1().events().resource(event).create());
    } catch (RuntimeException ex) {
      LOG.debug("could not record an event for {}: {}", key, ex.toString());
    }
  }

  private Timestamp now() {
    Instant i = clock.instant();
    return new Timestamp(Math.max(0, i.getEpochSecond()), i.getNano());
  }

  private static String key(CustomResource<PartialReportSpec, Void> resource) {
    var meta = resource.getMetadata();
    return resource.getKind()
        + "/"
        + Optional.ofNullable(meta.getNamespace()).orElse("")
        + "/"
        + meta.getName();
  }

  private void submit(Runnable task) {
    try {
      executor.execute(guarded(task));
    } catch (RejectedExecutionException e) {
      LOG.debug("controller closed; dropped a task");
    }
  }

  private void schedule(Runnable task, Duration delay) {
    try {
      executor.schedule(guarded(task), delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      LOG.debug("controller closed; dropped a timer");
    }
  }

  private Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (ApiInterruptedException e) {
        LOG.debug("interrupted: {}", e.getMessage());
      } catch (RuntimeException e) {
        // one failed task must not kill the thread; the next resync repairs the state
        LOG.error("aggregator task failed; will resync", e);
        resyncNeeded = true;
        if (!closed) {
          scheduleResync();
        }
      }
    };
  }

  /** Configures an {@link AggregatorController}. */
  public static final class Builder extends ApiClientBuilder<Builder> {
    private @Nullable Supplier<ReportAggregator> aggregators;
    private Clock clock = Clock.systemUTC();
    private LongSupplier nanoTicker = System::nanoTime;
    private Duration flushWindow = Duration.ofMillis(500);
    private Duration resyncPeriod = Duration.ofMinutes(10);
    private Duration syncTimeout = Duration.ofSeconds(60);
    private boolean serverSideApply;
    private boolean emitEvents = true;
    private @Nullable LeaderElectionSettings election;

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

    public AggregatorController build() {
      return new AggregatorController(this);
    }
  }
}
