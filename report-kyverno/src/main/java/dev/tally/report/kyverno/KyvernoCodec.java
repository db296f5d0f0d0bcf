package dev.tally.report.kyverno;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.resource.WireResult;
import dev.tally.report.merge.kyverno.IntermediateReport;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads Kyverno's intermediate reports ({@code reports.kyverno.io/v1} {@code EphemeralReport} and
 * {@code ClusterEphemeralReport}), as the informers decoded them ({@link KyvernoReportResource}),
 * into {@link IntermediateReport}s: it copies labels, annotations, the owner's uid, the creation
 * time and the results, and decides nothing; what they mean is {@link
 * dev.tally.report.merge.kyverno.KyvernoMapping}'s rule.
 */
public final class KyvernoCodec {
  /**
   * Kyverno's label naming an admission report's resource as {@code <plural>.<version>.<group>}.
   */
  public static final String GVR_LABEL = "audit.kyverno.io/resource.gvr";

  /** The API group and version of Kyverno's intermediate reports. */
  public static final String API_VERSION = "reports.kyverno.io/v1";

  public static final String EPHEMERAL_REPORT = "EphemeralReport";
  public static final String CLUSTER_EPHEMERAL_REPORT = "ClusterEphemeralReport";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private KyvernoCodec() {}

  /**
   * The intermediate report {@code object} holds, read from generic maps (a test's or a file's
   * object): it becomes the typed object the aggregator's informers hold ({@link #typed}) first.
   *
   * @throws InvalidReportException naming the field at fault, such as {@code
   *     spec.results[2].result} or {@code kind}
   */
  public static IntermediateReport read(GenericKubernetesResource object) {
    return read(typed(object));
  }

  /**
   * The intermediate report {@code object} holds: its results were decoded from the wire into
   * {@link dev.tally.report.fabric8.resource.WireResult}s once, and are validated here.
   *
   * @throws InvalidReportException naming the field at fault, such as {@code
   *     spec.results[2].result} or {@code metadata.namespace}
   */
  public static IntermediateReport read(KyvernoReportResource object) {
    InvalidReportException.requireNonNull("object", object);
    ObjectMeta meta = object.getMetadata();
    if (meta == null || meta.getName() == null) {
      throw new InvalidReportException("metadata.name", "is required");
    }
    String namespace = meta.getNamespace() == null ? "" : meta.getNamespace();
    boolean cluster = object instanceof ClusterEphemeralReportResource;
    if (cluster != namespace.isEmpty()) {
      throw new InvalidReportException(
          "metadata.namespace",
          object.getKind() + (namespace.isEmpty() ? " needs a namespace" : " has no namespace"));
    }
    KyvernoReportSpec spec = object.getSpec();
    return new IntermediateReport(
        namespace,
        meta.getName(),
        meta.getLabels() == null ? Map.of() : meta.getLabels(),
        meta.getAnnotations() == null ? Map.of() : meta.getAnnotations(),
        owner(meta),
        created(meta),
        spec == null || spec.results() == null
            ? List.of()
            : ReportCodec.decodeResults("spec.results", spec.results(), ""));
  }

  /**
   * {@code object} as the typed report of its kind: itself when it is one, else converted from its
   * generic maps, each result on its own so that an error names it.
   *
   * @throws InvalidReportException naming the field at fault: {@code kind} for an object that is
   *     not one of Kyverno's intermediate reports, {@code spec}, {@code spec.results} or {@code
   *     spec.results[i]} for one whose results are not results
   */
  public static KyvernoReportResource typed(HasMetadata object) {
    InvalidReportException.requireNonNull("object", object);
    if (object instanceof KyvernoReportResource typed) {
      return typed;
    }
    KyvernoReportResource typed = null;
    if (object instanceof GenericKubernetesResource && API_VERSION.equals(object.getApiVersion())) {
      if (EPHEMERAL_REPORT.equals(object.getKind())) {
        typed = new EphemeralReportResource();
      } else if (CLUSTER_EPHEMERAL_REPORT.equals(object.getKind())) {
        typed = new ClusterEphemeralReportResource();
      }
    }
    if (typed == null) {
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
    typed.setMetadata(object.getMetadata());
    typed.setSpec(new KyvernoReportSpec(results((GenericKubernetesResource) object)));
    return typed;
  }

  /**
   * The creation time in {@code meta}, if it has one.
   *
   * @throws InvalidReportException naming {@code metadata.creationTimestamp} when it is not an RFC
   *     3339 time
   */
  public static Optional<Timestamp> created(ObjectMeta meta) {
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

  private static Optional<String> owner(ObjectMeta meta) {
    List<OwnerReference> owners = meta.getOwnerReferences();
    if (owners == null || owners.isEmpty()) {
      return Optional.empty();
    }
    String uid = owners.get(0).getUid();
    return uid == null || uid.isEmpty() ? Optional.empty() : Optional.of(uid);
  }

  private static @Nullable List<WireResult> results(GenericKubernetesResource object) {
    Object spec = object.getAdditionalProperties().get("spec");
    if (spec == null) {
      return null;
    }
    if (!(spec instanceof Map<?, ?> map)) {
      throw new InvalidReportException("spec", "is not an object");
    }
    Object results = map.get("results");
    if (results == null) {
      return null;
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
    return wire;
  }
}
