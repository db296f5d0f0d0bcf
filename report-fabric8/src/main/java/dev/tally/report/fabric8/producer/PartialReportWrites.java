package dev.tally.report.fabric8.producer;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.metrics.WriteVerb;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.merge.EvaluationOrder;
import dev.tally.report.merge.names.KubernetesNames;
import dev.tally.report.merge.publish.Publication;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Clock;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write protocol of {@link PartialReportPublisher}: creates or updates one partial report
 * object, with the resourceVersion it got back when it wrote the object last, re-reading after a
 * conflict; keeps what the cluster holds when that is the same evaluation or a later one in {@link
 * EvaluationOrder} and keeps an adoption (both decided by report-merge's {@link
 * dev.tally.report.merge.publish.Publication}); keeps the pending-since time of a report not yet
 * adopted.
 */
final class PartialReportWrites {
  private static final Logger LOG = LoggerFactory.getLogger(PartialReportWrites.class);

  private static final int MAX_CONFLICT_ATTEMPTS = 8;

  /** The merge's order: the publisher keeps in the cluster what the aggregator keeps. */
  private static final int MAX_REMEMBERED = 100_000;

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final TallyMetrics metrics;
  private final Clock clock;

  /** What this publisher last wrote to an object, so the next write needs no GET first. */
  private record Written(
      PartialReport evaluation, String resourceVersion, @Nullable String pendingSince) {}

  /** Confined to the publisher thread (and adoptPending's caller: guarded by itself). */
  private final Map<String, Written> written =
      Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Written> eldest) {
              return size() > MAX_REMEMBERED;
            }
          });

  PartialReportWrites(KubernetesClient client, ApiCalls calls, TallyMetrics metrics, Clock clock) {
    this.client = client;
    this.calls = calls;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** The key of an object, in the queue and in what was written: namespace and name. */
  static String key(Subject subject, String name) {
    return subject.namespace() + "/" + name;
  }

  /** Forgets what was written to an object (it was deleted). */
  void forget(Subject subject, String name) {
    written.remove(key(subject, name));
  }

  /**
   * Creates or updates the object, re-reading after a conflict. It tries the likely request first
   * and reads only on a conflict: an update with the resourceVersion it got back when this
   * publisher wrote the object last, a create otherwise.
   */
  void write(PartialReport wanted) {
    Subject subject = wanted.subject();
    String name = KubernetesNames.partialReport(wanted.producer(), subject);
    String cacheKey = key(subject, name);
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
        Optional<PartialReport> write = Publication.toWrite(current, evaluation);
        if (write.isEmpty()) {
          metrics.noOpWriteSuppressed();
          return; // the cluster already holds this evaluation or a later one
        }
        evaluation = write.get();
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

  /** The partial report object of that name about that subject, namespaced or cluster-scoped. */
  @SuppressWarnings("unchecked")
  Resource<CustomResource<PartialReportSpec, Void>> partialResource(Subject subject, String name) {
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

  static @Nullable String annotation(HasMetadata resource, String name) {
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
}
