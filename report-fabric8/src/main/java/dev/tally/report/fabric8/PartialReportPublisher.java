package dev.tally.report.fabric8;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.OwnedPartialReports;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.merge.EvaluationOrder;
import dev.tally.report.merge.KubernetesNames;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What producers (an admission webhook, a scanner, an audit worker) use to write their partial
 * reports. One object per (producer, subject) with a deterministic name, updated in place; an owner
 * reference to the subject so garbage collection removes it with the subject.
 *
 * <ul>
 *   <li><b>Coalescing:</b> while a write for a subject is pending, a newer evaluation replaces it
 *       (latest wins by observedAt, generation, producer); both callers' futures complete with the
 *       one write.
 *   <li><b>Back-pressure:</b> at most {@code maxPending} subjects wait to be written; past that,
 *       {@link #publish} throws {@link PublisherSaturatedException}. Nothing is dropped silently.
 *   <li><b>Adoption:</b> an evaluation whose subject has no uid yet (admission on CREATE) is
 *       written without an owner; {@link #adoptPending()} later sets the uid and owner once the
 *       subject exists, or deletes the report if the subject never appeared within the grace
 *       period.
 * </ul>
 *
 * <p>Writes happen on one thread of the publisher's own, through the shared {@link ApiBudget}.
 */
public final class PartialReportPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PartialReportPublisher.class);

  private static final int MAX_CONFLICT_ATTEMPTS = 8;

  /** The merge's order: the publisher keeps in the cluster what the aggregator keeps. */
  private static final Comparator<PartialReport> ORDER = EvaluationOrder.ORDER;

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final TallyMetrics metrics;
  private final Clock clock;
  private final int maxPending;
  private final Duration adoptionGrace;
  private final SubjectResolver resolver;
  private final ScheduledExecutorService worker;

  private final Object lock = new Object();
  private final Map<String, Pending> pending = new LinkedHashMap<>();
  private boolean closed;

  private record Pending(PartialReport evaluation, CompletableFuture<Void> done) {}

  /** What this publisher last wrote to an object, so the next write needs no GET first. */
  private record Written(
      PartialReport evaluation, String resourceVersion, @Nullable String pendingSince) {}

  private static final int MAX_REMEMBERED = 100_000;

  /** Confined to the publisher thread (and adoptPending's caller: guarded by itself). */
  private final Map<String, Written> written =
      java.util.Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Written> eldest) {
              return size() > MAX_REMEMBERED;
            }
          });

  private PartialReportPublisher(Builder b) {
    this.client = b.client;
    this.metrics = b.metrics;
    this.calls = b.calls(new Random(b.seed));
    this.clock = b.clock;
    this.maxPending = b.maxPending;
    this.adoptionGrace = b.adoptionGrace;
    this.resolver = b.resolver == null ? SubjectResolver.of(b.client) : b.resolver;
    this.worker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tally-publisher");
              t.setDaemon(true);
              return t;
            });
  }

  public static Builder builder(KubernetesClient client) {
    return new Builder(client);
  }

  /**
   * The name of the partial report object of a producer about a subject. It does not depend on the
   * subject's uid, so a report written before its subject existed keeps its name when adopted.
   */
  public static String objectName(String producer, Subject subject) {
    return KubernetesNames.partialReport(producer, subject);
  }

  /**
   * Queues a partial report to be written. Its subject may have no uid yet (an admission webhook on
   * CREATE): it is then written without an owner and adopted once the subject exists. The future
   * completes when it (or a later evaluation of the same producer and subject that replaced it) is
   * written, or fails with a {@link RequestFailedException} whose message names the root cause (the
   * server's reason, or the network error such as "Connection refused") and whose cause is what the
   * client threw. It always settles: each request has a bounded number of attempts ({@link
   * RetryPolicy}), each bounded by the client's request timeout.
   *
   * @throws PublisherSaturatedException if {@code maxPending} subjects already wait
   * @throws IllegalStateException if the publisher is closed
   */
  public CompletableFuture<Void> publish(PartialReport evaluation) {
    String key = key(evaluation);
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("the publisher is closed");
      }
      Pending queued = pending.get(key);
      if (queued != null) {
        PartialReport latest =
            ORDER.compare(evaluation, queued.evaluation()) > 0 ? evaluation : queued.evaluation();
        pending.put(key, new Pending(latest, queued.done()));
        return queued.done();
      }
      if (pending.size() >= maxPending) {
        throw new PublisherSaturatedException(maxPending);
      }
      var done = new CompletableFuture<Void>();
      pending.put(key, new Pending(evaluation, done));
      worker.execute(() -> drain(key));
      return done;
    }
  }

  /** How many subjects wait to be written. */
  public int pendingCount() {
    synchronized (lock) {
      return pending.size();
    }
  }

  /** Runs {@link #adoptPending()} every {@code period} on the publisher's thread. */
  public void adoptEvery(Duration period) {
    worker.scheduleWithFixedDelay(
        () -> {
          try {
            adoptPending();
          } catch (RuntimeException e) {
            LOG.warn("adoption pass failed: {}", RequestFailedException.rootCause(e));
          }
        },
        period.toNanos(),
        period.toNanos(),
        TimeUnit.NANOSECONDS);
  }

  /**
   * Adopts partial reports whose subject had no uid when they were written: sets the uid and the
   * owner reference once the subject exists, deletes the report once its subject has not appeared
   * within the grace period.
   */
  public AdoptionOutcome adoptPending() {
    int adopted = 0;
    int removed = 0;
    int waiting = 0;
    List<CustomResource<PartialReportSpec, Void>> candidates = new ArrayList<>();
    candidates.addAll(OwnedPartialReports.inAnyNamespace(client, calls));
    candidates.addAll(OwnedPartialReports.clusterScoped(client, calls));
    for (var resource : candidates) {
      PartialReport evaluation;
      try {
        evaluation = ReportCodec.decodePartial(resource);
      } catch (InvalidReportException e) {
        continue; // not ours to judge here: the aggregator rejects it
      }
      if (evaluation.adopted()) {
        continue;
      }
      var uid = resolver.uidOf(evaluation.subject());
      if (uid.isPresent()) {
        write(evaluation.withSubjectUid(uid.get()));
        adopted++;
        LOG.debug("adopted {}", evaluation.subject().display());
      } else if (expired(resource)) {
        String rv = resource.getMetadata().getResourceVersion();
        try {
          calls.run(
              "delete " + resource.getMetadata().getName(),
              () ->
                  partialResource(evaluation.subject(), resource.getMetadata().getName())
                      .lockResourceVersion(rv)
                      .delete());
          removed++;
          written.remove(evaluation.subject().namespace() + "/" + resource.getMetadata().getName());
          LOG.info(
              "removed the partial report about {}: it never appeared",
              evaluation.subject().display());
        } catch (KubernetesClientException e) {
          if (!ApiCalls.changedMeanwhile(e)) {
            throw e;
          }
          waiting++; // changed meanwhile: look again next pass
        }
      } else {
        waiting++;
      }
    }
    return new AdoptionOutcome(adopted, removed, waiting);
  }

  /** Stops accepting evaluations, lets the queued writes finish for up to {@code timeout}. */
  public void close(Duration timeout) {
    synchronized (lock) {
      closed = true;
    }
    worker.shutdown();
    try {
      if (!worker.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        worker.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      worker.shutdownNow();
    }
    synchronized (lock) {
      for (Pending p : pending.values()) {
        p.done().completeExceptionally(new IllegalStateException("the publisher was closed"));
      }
      pending.clear();
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(10));
  }

  // ------------------------------------------------------------------ on the publisher thread

  private void drain(String key) {
    Pending p;
    synchronized (lock) {
      p = pending.remove(key);
    }
    if (p == null) {
      return;
    }
    try {
      write(p.evaluation());
      p.done().complete(null);
    } catch (RuntimeException e) {
      var failure =
          new RequestFailedException(
              "publishing the partial report of "
                  + p.evaluation().producer()
                  + " about "
                  + p.evaluation().subject().display(),
              e);
      LOG.warn("{}", failure.getMessage());
      p.done().completeExceptionally(failure);
    }
  }

  /**
   * Creates or updates the object, re-reading after a conflict. It tries the likely request first
   * and reads only on a conflict: an update with the resourceVersion it got back when this
   * publisher wrote the object last, a create otherwise.
   */
  private void write(PartialReport wanted) {
    Subject subject = wanted.subject();
    String name = objectName(wanted.producer(), subject);
    String cacheKey = subject.namespace() + "/" + name;
    for (int attempt = 1; ; attempt++) {
      PartialReport evaluation = wanted;
      @Nullable Written known = attempt == 1 ? written.get(cacheKey) : null;
      @Nullable CustomResource<PartialReportSpec, Void> existing = null;
      @Nullable PartialReport current;
      @Nullable String resourceVersion;
      @Nullable String pendingSince = null;
      if (known != null) {
        current = known.evaluation();
        resourceVersion = known.resourceVersion();
        pendingSince = known.pendingSince();
      } else if (attempt == 1) {
        // most objects are new (admission, a first scan): create, and read only on a 409
        current = null;
        resourceVersion = null;
      } else {
        existing = calls.call("get " + name, () -> partialResource(subject, name).get());
        current = existing == null ? null : decodeOrNull(existing);
        resourceVersion = existing == null ? null : existing.getMetadata().getResourceVersion();
        if (existing != null) {
          pendingSince = annotation(existing, WireNames.PENDING_SINCE_ANNOTATION);
        }
      }
      if (current != null) {
        if (current.adopted() && !evaluation.adopted()) {
          // a later evaluation from before the uid was known: keep the adoption
          evaluation = evaluation.withSubjectUid(current.subject().uid());
        }
        int order = ORDER.compare(current, evaluation);
        if (order > 0 || (order == 0 && current.equals(evaluation))) {
          metrics.noOpWriteSuppressed();
          return; // the cluster already holds this evaluation or a later one
        }
      }
      CustomResource<PartialReportSpec, Void> desired = ReportCodec.encodePartial(evaluation, name);
      @Nullable String since = null;
      if (!evaluation.adopted()) {
        since = pendingSince != null ? pendingSince : Instant.now(clock).toString();
        desired.getMetadata().setAnnotations(Map.of(WireNames.PENDING_SINCE_ANNOTATION, since));
      }
      try {
        HasMetadata result;
        if (resourceVersion == null) {
          result = calls.call("create " + name, () -> client.resource(desired).create());
          metrics.partialPublished(WriteVerb.CREATE);
        } else {
          desired.getMetadata().setResourceVersion(resourceVersion);
          result = calls.call("update " + name, () -> client.resource(desired).update());
          metrics.partialPublished(WriteVerb.UPDATE);
        }
        if (result != null && result.getMetadata() != null) {
          written.put(
              cacheKey, new Written(evaluation, result.getMetadata().getResourceVersion(), since));
        }
        return;
      } catch (KubernetesClientException e) {
        written.remove(cacheKey);
        if (!ApiCalls.changedMeanwhile(e) || attempt >= MAX_CONFLICT_ATTEMPTS) {
          throw e;
        }
        LOG.debug("{} changed meanwhile ({}); re-reading", name, e.getCode());
      }
    }
  }

  private boolean expired(HasMetadata resource) {
    String since = annotation(resource, WireNames.PENDING_SINCE_ANNOTATION);
    if (since == null) {
      return false;
    }
    try {
      return Instant.parse(since).plus(adoptionGrace).isBefore(clock.instant());
    } catch (DateTimeParseException e) {
      return true;
    }
  }

  private static @Nullable String annotation(HasMetadata resource, String name) {
    var annotations = resource.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(name);
  }

  private static @Nullable PartialReport decodeOrNull(CustomResource<PartialReportSpec, Void> r) {
    try {
      return ReportCodec.decodePartial(r);
    } catch (InvalidReportException e) {
      return null; // overwrite what is there
    }
  }

  @SuppressWarnings("unchecked")
  private Resource<CustomResource<PartialReportSpec, Void>> partialResource(
      Subject subject, String name) {
    if (subject.clusterScoped()) {
      return (Resource<CustomResource<PartialReportSpec, Void>>)
          (Resource<?>) client.resources(ClusterPartialReportResource.class).withName(name);
    }
    return (Resource<CustomResource<PartialReportSpec, Void>>)
        (Resource<?>)
            client
                .resources(PartialReportResource.class)
                .inNamespace(subject.namespace())
                .withName(name);
  }

  private static String key(PartialReport e) {
    return e.subject().namespace() + "/" + objectName(e.producer(), e.subject());
  }

  /** Configures a {@link PartialReportPublisher}. */
  public static final class Builder extends ApiClientBuilder<Builder> {
    private Clock clock = Clock.systemUTC();
    private int maxPending = 10_000;
    private Duration adoptionGrace = Duration.ofMinutes(5);
    private @Nullable SubjectResolver resolver;

    private Builder(KubernetesClient client) {
      super(client);
    }

    /** Where pending-since times and the grace period are measured. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** The most subjects waiting to be written; 10,000 by default. */
    public Builder maxPending(int maxPending) {
      if (maxPending < 1) {
        throw new IllegalArgumentException("maxPending must be at least 1");
      }
      this.maxPending = maxPending;
      return this;
    }

    /** How long a report waits for its subject to appear before it is removed; 5 minutes. */
    public Builder adoptionGrace(Duration adoptionGrace) {
      this.adoptionGrace = adoptionGrace;
      return this;
    }

    /** How subjects' uids are found for adoption; a generic GET by default. */
    public Builder subjectResolver(SubjectResolver resolver) {
      this.resolver = resolver;
      return this;
    }

    public PartialReportPublisher build() {
      return new PartialReportPublisher(this);
    }
  }
}
