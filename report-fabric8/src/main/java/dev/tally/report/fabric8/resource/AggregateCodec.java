package dev.tally.report.fabric8.resource;

import static dev.tally.report.fabric8.resource.CodecPieces.field;
import static dev.tally.report.fabric8.resource.CodecPieces.noNullValues;
import static dev.tally.report.fabric8.resource.CodecPieces.nonNull;
import static dev.tally.report.fabric8.resource.CodecPieces.ownerReference;
import static dev.tally.report.fabric8.resource.CodecPieces.subject;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.WireNames;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Aggregates (PolicyReport, ClusterPolicyReport, Report, ClusterReport) between the model and their
 * custom resource classes: the class of each kind, binding and JSON, and {@link AggregateReport} to
 * {@link AggregateResource} and back, strict or lenient.
 */
final class AggregateCodec {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private AggregateCodec() {}

  /** The custom resource class of an aggregate kind. */
  static Class<? extends AggregateResource> resourceClass(ReportKind kind) {
    return switch (kind) {
      case POLICY_REPORT -> PolicyReportResource.class;
      case CLUSTER_POLICY_REPORT -> ClusterPolicyReportResource.class;
      case REPORT -> ReportResource.class;
      case CLUSTER_REPORT -> ClusterReportResource.class;
    };
  }

  /** A new, empty custom resource of an aggregate kind. */
  static AggregateResource newResource(ReportKind kind) {
    return switch (kind) {
      case POLICY_REPORT -> new PolicyReportResource();
      case CLUSTER_POLICY_REPORT -> new ClusterPolicyReportResource();
      case REPORT -> new ReportResource();
      case CLUSTER_REPORT -> new ClusterReportResource();
    };
  }

  /**
   * Binds a JSON tree (maps, lists and scalars) to the resource class of {@code kind}. fabric8
   * picks the class by apiVersion and kind, so what it binds names the class's own; the object
   * keeps the apiVersion the tree has. The tree is not changed.
   *
   * @throws IllegalArgumentException if the tree does not bind, with Jackson's exception (which
   *     names the path) as its cause
   */
  static AggregateResource bind(Map<String, Object> tree, ReportKind kind) {
    Object apiVersion = tree.get("apiVersion");
    Map<String, Object> named = new LinkedHashMap<>(tree);
    named.put("apiVersion", kind.apiVersion());
    named.put("kind", kind.kind());
    AggregateResource res = SERIALIZATION.convertValue(named, resourceClass(kind));
    res.setApiVersion(apiVersion instanceof String s ? s : kind.apiVersion());
    return res;
  }

  /** The JSON of an aggregate object. */
  static String toJson(AggregateResource res) {
    return SERIALIZATION.asJson(res);
  }

  /** An aggregate object from its {@link #toJson} form, whatever version it names. */
  @SuppressWarnings("unchecked")
  static AggregateResource fromJson(String json, ReportKind kind) {
    return bind(SERIALIZATION.unmarshal(json, Map.class), kind);
  }

  /** {@link ReportCodec#encode(AggregateReport)}, in full. */
  static AggregateResource encode(AggregateReport report) {
    ReportKind kind = report.ref().kind();
    AggregateResource res = newResource(kind);
    var meta =
        new ObjectMetaBuilder()
            .withName(report.ref().name())
            .withNamespace(kind.namespaced() ? report.ref().namespace() : null)
            .withLabels(report.labels().isEmpty() ? null : new TreeMap<>(report.labels()));
    if (!report.contentHash().isEmpty()) {
      meta.withAnnotations(Map.of(WireNames.CONTENT_HASH_ANNOTATION, report.contentHash()));
    }
    report.owner().ifPresent(o -> meta.withOwnerReferences(ownerReference(o)));
    res.setMetadata(meta.build());
    res.setScope(report.scope().map(CodecPieces::reference).orElse(null));
    if (report.configuration().isPresent()) {
      if (!kind.openReports()) {
        throw new InvalidReportException(
            "configuration", "only the openreports kinds carry one, not " + kind.kind());
      }
      res.setConfiguration(configuration(report.configuration().get()));
    }
    Summary s = report.summary();
    res.setSummary(
        new WireSummary(
            (long) s.pass(), (long) s.fail(), (long) s.warn(), (long) s.error(), (long) s.skip()));
    List<WireResult> results = new ArrayList<>(report.results().size());
    for (Result r : report.results()) {
      results.add(ResultCodec.encodeResult(r));
    }
    res.setResults(results);
    return res;
  }

  /** {@link ReportCodec#decode(AggregateResource)}, in full: strict. */
  static AggregateReport decode(AggregateResource res) {
    return decode(res, null);
  }

  /**
   * Decodes an aggregate object in the layout of {@link WireResult}. With a list of warnings the
   * decoding is lenient and applies the normalisations of {@link ReportCodec}'s class comment,
   * adding a warning for each; without, it is strict.
   */
  static AggregateReport decode(AggregateResource res, @Nullable List<CodecWarning> warnings) {
    ReportKind kind = res.reportKind();
    ObjectMeta meta = res.getMetadata();
    if (meta == null || meta.getName() == null) {
      throw new InvalidReportException("metadata.name", "is required");
    }
    String namespace = kind.namespaced() ? nonNull(meta.getNamespace()) : "";
    var ref = field("metadata", () -> new ReportRef(kind, namespace, meta.getName()));
    Map<String, String> labels =
        meta.getLabels() == null ? Map.of() : noNullValues("metadata.labels", meta.getLabels());
    String hash =
        meta.getAnnotations() == null
            ? ""
            : nonNull(meta.getAnnotations().get(WireNames.CONTENT_HASH_ANNOTATION));
    Optional<Subject> owner = owner(meta.getOwnerReferences(), namespace);
    Optional<Subject> scope =
        Optional.ofNullable(res.getScope()).map(s -> field("scope", () -> subject(s)));
    Optional<ReportConfiguration> configuration = configuration(res.getConfiguration(), warnings);
    String defaultSource = nonNull(res.getSource());
    List<Result> results =
        ResultCodec.decodeResults("results", res.getResults(), defaultSource, warnings);
    WireSummary ws = res.getSummary();
    Summary summary =
        ws == null
            ? Summary.of(results)
            : field(
                "summary",
                () ->
                    new Summary(
                        count("pass", ws.pass(), warnings),
                        count("fail", ws.fail(), warnings),
                        count("warn", ws.warn(), warnings),
                        count("error", ws.error(), warnings),
                        count("skip", ws.skip(), warnings)));
    return field(
        "metadata",
        () ->
            new AggregateReport(ref, labels, scope, owner, configuration, results, summary, hash));
  }

  /** The owner an object's references name: the controller, else the first one. */
  static Optional<Subject> owner(@Nullable List<OwnerReference> refs, String namespace) {
    if (refs == null || refs.isEmpty()) {
      return Optional.empty();
    }
    int index = 0;
    for (int i = 0; i < refs.size(); i++) {
      if (refs.get(i) == null) {
        throw new InvalidReportException("metadata.ownerReferences[" + i + "]", "is null");
      }
      if (Boolean.TRUE.equals(refs.get(i).getController())) {
        index = i;
        break;
      }
    }
    OwnerReference o = refs.get(index);
    return Optional.of(
        field(
            "metadata.ownerReferences[" + index + "]",
            () ->
                new Subject(
                    nonNull(o.getApiVersion()),
                    nonNull(o.getKind()),
                    namespace,
                    nonNull(o.getName()),
                    nonNull(o.getUid()))));
  }

  private static WireConfiguration configuration(ReportConfiguration c) {
    List<String> filter =
        c.statusFilter().isEmpty()
            ? null
            : EnumSet.copyOf(c.statusFilter()).stream().map(ResultStatus::wireName).toList();
    return new WireConfiguration(new WireConfiguration.Limits(c.maxResults(), filter));
  }

  /**
   * The configuration an object holds, if any; when lenient, a {@code maxResults} below 1 reads as
   * no limit, with a warning.
   */
  static Optional<ReportConfiguration> configuration(
      @Nullable WireConfiguration wire, @Nullable List<CodecWarning> warnings) {
    if (wire == null || wire.limits() == null) {
      return Optional.empty();
    }
    WireConfiguration.Limits limits = wire.limits();
    Set<ResultStatus> filter = EnumSet.noneOf(ResultStatus.class);
    List<String> statuses = limits.statusFilter() == null ? List.of() : limits.statusFilter();
    for (int i = 0; i < statuses.size(); i++) {
      String at = "configuration.limits.statusFilter[" + i + "]";
      if (statuses.get(i) == null) {
        throw new InvalidReportException(at, "is null");
      }
      filter.add(ResultStatus.fromWire(at, statuses.get(i)));
    }
    // an absent maxResults sets no limit
    int max = limits.maxResults() == null ? Integer.MAX_VALUE : limits.maxResults().intValue();
    if (max < 1 && warnings != null) {
      warnings.add(
          new CodecWarning(
              "configuration.limits.maxResults", max + " is below 1; read as no limit"));
      max = Integer.MAX_VALUE;
    }
    return Optional.of(new ReportConfiguration(max, filter));
  }

  /** A summary count: absent reads as zero; when lenient, a negative one too, with a warning. */
  private static int count(String name, @Nullable Long n, @Nullable List<CodecWarning> warnings) {
    if (n == null) {
      return 0;
    }
    if (n < 0 && warnings != null) {
      warnings.add(new CodecWarning("summary." + name, n + " is negative; read as 0"));
      return 0;
    }
    if (n > Integer.MAX_VALUE) {
      if (warnings == null) {
        // named under summary by the caller's field("summary", ..)
        throw new InvalidReportException(
            name, "must be at most " + Integer.MAX_VALUE + ", was " + n);
      }
      warnings.add(
          new CodecWarning(
              "summary." + name, n + " is over " + Integer.MAX_VALUE + "; read as that"));
      return Integer.MAX_VALUE;
    }
    return n.intValue();
  }
}
