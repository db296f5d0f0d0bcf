package dev.tally.report.fabric8.kyverno;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.resource.WireResult;
import dev.tally.report.merge.kyverno.IntermediateReport;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads Kyverno's intermediate reports ({@code reports.kyverno.io/v1} {@code EphemeralReport} and
 * {@code ClusterEphemeralReport}) off the wire into {@link IntermediateReport}s: it copies labels,
 * annotations, the owner's uid, the creation time and the results, and decides nothing; what they
 * mean is {@link dev.tally.report.merge.kyverno.KyvernoMapping}'s rule.
 */
public final class KyvernoCodec {
  /** The API group and version of Kyverno's intermediate reports. */
  public static final String API_VERSION = "reports.kyverno.io/v1";

  public static final String EPHEMERAL_REPORT = "EphemeralReport";
  public static final String CLUSTER_EPHEMERAL_REPORT = "ClusterEphemeralReport";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private KyvernoCodec() {}

  /**
   * The intermediate report {@code object} holds.
   *
   * @throws InvalidReportException naming the field at fault, such as {@code
   *     spec.results[2].result} or {@code kind}
   */
  public static IntermediateReport read(GenericKubernetesResource object) {
    InvalidReportException.requireNonNull("object", object);
    if (!API_VERSION.equals(object.getApiVersion())
        || !(EPHEMERAL_REPORT.equals(object.getKind())
            || CLUSTER_EPHEMERAL_REPORT.equals(object.getKind()))) {
      throw new InvalidReportException(
          "kind",
          "'"
              + object.getApiVersion()
              + " "
              + object.getKind()
              + "' is not one of Kyverno's intermediate reports ("
              + API_VERSION
              + " "
              + EPHEMERAL_REPORT
              + " or "
              + CLUSTER_EPHEMERAL_REPORT
              + ")");
    }
    ObjectMeta meta = object.getMetadata();
    if (meta == null || meta.getName() == null) {
      throw new InvalidReportException("metadata.name", "is required");
    }
    String namespace = meta.getNamespace() == null ? "" : meta.getNamespace();
    if (CLUSTER_EPHEMERAL_REPORT.equals(object.getKind()) != namespace.isEmpty()) {
      throw new InvalidReportException(
          "metadata.namespace",
          object.getKind() + (namespace.isEmpty() ? " needs a namespace" : " has no namespace"));
    }
    return new IntermediateReport(
        namespace,
        meta.getName(),
        meta.getLabels() == null ? Map.of() : meta.getLabels(),
        meta.getAnnotations() == null ? Map.of() : meta.getAnnotations(),
        owner(meta),
        created(meta),
        results(object));
  }

  private static Optional<String> owner(ObjectMeta meta) {
    List<OwnerReference> owners = meta.getOwnerReferences();
    if (owners == null || owners.isEmpty()) {
      return Optional.empty();
    }
    String uid = owners.get(0).getUid();
    return uid == null || uid.isEmpty() ? Optional.empty() : Optional.of(uid);
  }

  private static Optional<Timestamp> created(ObjectMeta meta) {
    String created = meta.getCreationTimestamp();
    if (created == null || created.isEmpty()) {
      return Optional.empty();
    }
    try {
      var instant = OffsetDateTime.parse(created).toInstant();
      return Optional.of(
          Timestamp.of("metadata.creationTimestamp", instant.getEpochSecond(), instant.getNano()));
    } catch (DateTimeParseException e) {
      throw new InvalidReportException(
          "metadata.creationTimestamp", "is not an RFC 3339 time: '" + created + "'");
    }
  }

  private static List<Result> results(GenericKubernetesResource object) {
    Object spec = object.getAdditionalProperties().get("spec");
    if (spec == null) {
      return List.of();
    }
    if (!(spec instanceof Map<?, ?> map)) {
      throw new InvalidReportException("spec", "is not an object");
    }
    Object results = map.get("results");
    if (results == null) {
      return List.of();
    }
    if (!(results instanceof List<?> list)) {
      throw new InvalidReportException("spec.results", "is not a list");
    }
    List<WireResult> wire = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      try {
        wire.add(SERIALIZATION.convertValue(list.get(i), WireResult.class));
      } catch (RuntimeException e) {
        throw new InvalidReportException(
            "spec.results[" + i + "]", "is not a result: " + e.getMessage());
      }
    }
    return ReportCodec.decodeResults("spec.results", wire, "");
  }
}
