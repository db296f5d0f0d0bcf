package dev.tally.report.kyverno;

import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.client.Requests;
import dev.tally.report.fabric8.internal.UnparsedDelete;
import dev.tally.report.merge.kyverno.KyvernoMapping;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.net.HttpURLConnection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests the aggregator makes on Kyverno's intermediate reports, and what adoption writes
 * onto one: a delete at the version read, and a merge patch of an adopted report's uid label and
 * owner reference. {@link IntermediateReports} decides when each is made; this makes it.
 */
final class ReportRequests {
  private static final Logger LOG = LoggerFactory.getLogger(IntermediateReports.class);
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** What a delete did. */
  enum Deleted {
    /** The report is gone: deleted now, or already. */
    GONE,
    /** It changed since it was read (409): its new version arrives as an event. */
    CHANGED,
    /** The request failed: it is tried again later. */
    FAILED
  }

  private final KubernetesClient client;
  private final Requests calls;

  ReportRequests(KubernetesClient client, Requests calls) {
    this.client = client;
    this.calls = calls;
  }

  /**
   * Runs {@code task} for the indexes 0 to {@code count - 1}, as many at once as the requests allow
   * ({@link Requests#each}), and returns when all ended.
   */
  void each(int count, IntConsumer task) {
    calls.each(count, () -> true, task);
  }

  /** Deletes one report, known as {@code key}, at {@code resourceVersion}; from any thread. */
  Deleted delete(
      String key, boolean clusterScoped, String namespace, String name, String resourceVersion) {
    try {
      // nothing of the answer is needed but its status: it is not parsed (UnparsedDelete)
      calls.run(
          "delete " + key,
          () ->
              UnparsedDelete.delete(
                  client,
                  clusterScoped ? KyvernoReports.CLUSTER_EPHEMERAL : KyvernoReports.EPHEMERAL,
                  namespace,
                  name,
                  resourceVersion));
      return Deleted.GONE;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return Deleted.GONE;
      }
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return Deleted.CHANGED;
      }
      LOG.warn("could not delete {}: {}", key, RequestFailedException.rootCause(e));
      return Deleted.FAILED;
    }
  }

  /**
   * Writes the uid label and owner reference of an adopted report (keep), as a JSON merge patch of
   * its metadata at the version read: nothing else of the report is sent, so what Tally does not
   * read of it (Kyverno's {@code spec.owner}, {@code spec.summary}) stays as it is.
   */
  void adopt(String key, KyvernoReportResource report, String uid, Subject subject) {
    var meta = report.getMetadata();
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("resourceVersion", meta.getResourceVersion());
    metadata.put("labels", Map.of(KyvernoMapping.UID_LABEL, uid));
    metadata.put("ownerReferences", List.of(ownerReference(uid, subject)));
    String patch = SERIALIZATION.asJson(Map.of("metadata", metadata));
    try {
      calls.call(
          "adopt " + key,
          // on the report held, so fabric8 names it without reading it first
          () -> client.resource(report).patch(PatchContext.of(PatchType.JSON_MERGE), patch));
    } catch (KubernetesClientException e) {
      // a conflict means it changed: its event brings it back to adoption
      LOG.info("could not adopt {}: {}", key, RequestFailedException.rootCause(e));
    }
  }

  /**
   * The plural of the resource an admission report names, from its {@code
   * audit.kyverno.io/resource.gvr} label ({@code <plural>.<version>[.<group>]}), or in the long
   * form from the {@code audit.kyverno.io/resource.name} label: so no discovery request is needed.
   * Null when it names none (then discovery). Whatever it names, only the adoption kinds are read.
   */
  static @Nullable String plural(HasMetadata object) {
    Map<String, String> labels =
        object.getMetadata().getLabels() == null ? Map.of() : object.getMetadata().getLabels();
    String plural;
    String gvr = labels.get(KyvernoCodec.GVR_LABEL);
    if (gvr != null && !gvr.isEmpty()) {
      int dot = gvr.indexOf('.');
      plural = dot < 0 ? null : gvr.substring(0, dot);
    } else {
      plural = labels.get(KyvernoMapping.NAME_ANNOTATION);
    }
    return plural == null || plural.isEmpty() ? null : plural;
  }

  /** A copy of {@code object} with the uid label and an owner reference to the resource. */
  static KyvernoReportResource withUid(KyvernoReportResource object, String uid, Subject subject) {
    var meta = new ObjectMetaBuilder(object.getMetadata()).build();
    Map<String, String> labels =
        meta.getLabels() == null ? new HashMap<>() : new HashMap<>(meta.getLabels());
    labels.put(KyvernoMapping.UID_LABEL, uid);
    meta.setLabels(labels);
    meta.setOwnerReferences(List.of(ownerReference(uid, subject)));
    return object.withMetadata(meta);
  }

  private static OwnerReference ownerReference(String uid, Subject subject) {
    return new OwnerReferenceBuilder()
        .withApiVersion(subject.apiVersion())
        .withKind(subject.kind())
        .withName(subject.name())
        .withUid(uid)
        .build();
  }
}
