package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Converts between the immutable report-api model and the custom resource classes, field by field
 * and nothing more: {@code decode(encode(r))} equals {@code r}. Decoding validates through the
 * model, so a bad object fails with an {@link InvalidReportException} naming the field path, such
 * as {@code results[3].result}.
 */
public final class ReportCodec {
  private static final Logger LOG = LoggerFactory.getLogger(ReportCodec.class);

  /** The annotation holding the content hash of what Tally wrote. */
  public static final String CONTENT_HASH_ANNOTATION = "tally.dev/content-hash";

  /** The label naming a partial report's producer (a valid label value derived from it). */
  public static final String PRODUCER_LABEL = "tally.dev/producer";

  /** The label holding a partial report's subject uid; absent until the subject is adopted. */
  public static final String SUBJECT_UID_LABEL = "tally.dev/subject-uid";

  private ReportCodec() {}

  /** The custom resource class of an aggregate kind. */
  public static Class<? extends AggregateResource> resourceClass(ReportKind kind) {
    return switch (kind) {
      case POLICY_REPORT -> PolicyReportResource.class;
      case CLUSTER_POLICY_REPORT -> ClusterPolicyReportResource.class;
      case REPORT -> ReportResource.class;
      case CLUSTER_REPORT -> ClusterReportResource.class;
    };
  }

  /** A new, empty custom resource of an aggregate kind. */
  public static AggregateResource newResource(ReportKind kind) {
    return switch (kind) {
      case POLICY_REPORT -> new PolicyReportResource();
      case CLUSTER_POLICY_REPORT -> new ClusterPolicyReportResource();
      case REPORT -> new ReportResource();
      case CLUSTER_REPORT -> new ClusterReportResource();
    };
  }

  // ---------------------------------------------------------------- aggregates

  /**
   * The object to write for an aggregate: its labels, the content hash annotation, an owner
   * reference when it has an owner, and every field of the report.
   *
   * @throws InvalidReportException if a wgpolicy report carries an openreports configuration
   */
  public static AggregateResource encode(AggregateReport report) {
    ReportKind kind = report.ref().kind();
    AggregateResource res = newResource(kind);
    var meta =
        new ObjectMetaBuilder()
            .withName(report.ref().name())
            .withNamespace(kind.namespaced() ? report.ref().namespace() : null)
            .withLabels(report.labels().isEmpty() ? null : new TreeMap<>(report.labels()));
    if (!report.contentHash().isEmpty()) {
      meta.withAnnotations(Map.of(CONTENT_HASH_ANNOTATION, report.contentHash()));
    }
    report.owner().ifPresent(o -> meta.withOwnerReferences(ownerReference(o)));
    res.setMetadata(meta.build());
    res.setScope(report.scope().map(ReportCodec::reference).orElse(null));
    if (report.configuration().isPresent()) {
      if (!kind.openReports()) {
        throw new InvalidReportException(
            "configuration", "only the openreports kinds carry one, not " + kind.kind());
      }
      res.setConfiguration(configuration(report.configuration().get()));
    }
    Summary s = report.summary();
    res.setSummary(new WireSummary(s.pass(), s.fail(), s.warn(), s.error(), s.skip()));
    List<WireResult> results = new ArrayList<>(report.results().size());
    for (Result r : report.results()) {
      results.add(encodeResult(r));
    }
    res.setResults(results);
    return res;
  }

  /**
   * The aggregate an observed object holds. The content hash is the stored annotation, or empty.
   *
   * @throws InvalidReportException naming the first invalid field
   */
  public static AggregateReport decode(AggregateResource res) {
    ReportKind kind = res.reportKind();
    ObjectMeta meta = res.getMetadata();
    if (meta == null || meta.getName() == null) {
      throw new InvalidReportException("metadata.name", "is required");
    }
    String namespace = kind.namespaced() ? nonNull(meta.getNamespace()) : "";
    var ref = new ReportRef(kind, namespace, meta.getName());
    Map<String, String> labels = meta.getLabels() == null ? Map.of() : meta.getLabels();
    String hash =
        meta.getAnnotations() == null
            ? ""
            : nonNull(meta.getAnnotations().get(CONTENT_HASH_ANNOTATION));
    Optional<Subject> owner = Optional.empty();
    if (meta.getOwnerReferences() != null && !meta.getOwnerReferences().isEmpty()) {
      OwnerReference o =
          meta.getOwnerReferences().stream()
              .filter(r -> Boolean.TRUE.equals(r.getController()))
              .findFirst()
              .orElse(meta.getOwnerReferences().get(0));
      owner =
          Optional.of(
              field(
                  "metadata.ownerReferences",
                  () ->
                      new Subject(
                          nonNull(o.getApiVersion()),
                          nonNull(o.getKind()),
                          namespace,
                          nonNull(o.getName()),
                          nonNull(o.getUid()))));
    }
    Optional<Subject> scope =
        Optional.ofNullable(res.getScope()).map(s -> field("scope", () -> subject(s)));
    Optional<ReportConfiguration> configuration =
        Optional.ofNullable(res.getConfiguration())
            .flatMap(c -> Optional.ofNullable(c.limits()))
            .map(ReportCodec::configuration);
    String defaultSource = nonNull(res.getSource());
    List<Result> results = decodeResults("results", res.getResults(), defaultSource);
    WireSummary ws = res.getSummary();
    Summary summary =
        ws == null
            ? Summary.of(results)
            : field(
                "summary",
                () ->
                    new Summary(
                        count(ws.pass()),
                        count(ws.fail()),
                        count(ws.warn()),
                        count(ws.error()),
                        count(ws.skip())));
    return new AggregateReport(ref, labels, scope, owner, configuration, results, summary, hash);
  }

  /**
   * Reads published aggregates from YAML or JSON text, one or several documents. Lenient where real
   * tools are sloppy: an {@code openreports.io} document that says {@code PolicyReport} or {@code
   * ClusterPolicyReport} is read as Report or ClusterReport, with a warning; a namespaced report
   * without a namespace lands in {@code defaultNamespace}, as {@code kubectl apply} would put it.
   *
   * @throws InvalidReportException if a document is not an aggregate kind, or is invalid
   */
  public static List<AggregateReport> readDocuments(String text, String defaultNamespace) {
    List<AggregateReport> out = new ArrayList<>();
    int index = 0;
    for (String doc : text.split("(?m)^---\\s*$")) {
      if (doc.isBlank() || doc.lines().allMatch(l -> l.isBlank() || l.startsWith("#"))) {
        continue;
      }
      String field = "documents[" + index++ + "]";
      GenericKubernetesResource generic =
          Serialization.unmarshal(doc, GenericKubernetesResource.class);
      ReportKind kind = kindOf(field, generic.getApiVersion(), generic.getKind());
      // fabric8 picks the class by apiVersion and kind, so name the kind it was read as
      generic.setApiVersion(kind.apiVersion());
      generic.setKind(kind.kind());
      AggregateResource res =
          Serialization.unmarshal(Serialization.asJson(generic), resourceClass(kind));
      if (kind.namespaced()
          && (res.getMetadata().getNamespace() == null
              || res.getMetadata().getNamespace().isEmpty())) {
        res.getMetadata().setNamespace(defaultNamespace);
      }
      try {
        out.add(decode(res));
      } catch (InvalidReportException e) {
        throw e.under(field);
      }
    }
    return List.copyOf(out);
  }

  private static ReportKind kindOf(
      String field, @Nullable String apiVersion, @Nullable String kind) {
    String group = apiVersion == null ? "" : apiVersion.substring(0, apiVersion.indexOf('/') + 1);
    for (ReportKind k : ReportKind.values()) {
      if (k.kind().equals(kind) && (k.group() + "/").equals(group)) {
        return k;
      }
    }
    if ("openreports.io/".equals(group) && "PolicyReport".equals(kind)) {
      LOG.warn("{}: read openreports.io kind PolicyReport as Report", field);
      return ReportKind.REPORT;
    }
    if ("openreports.io/".equals(group) && "ClusterPolicyReport".equals(kind)) {
      LOG.warn("{}: read openreports.io kind ClusterPolicyReport as ClusterReport", field);
      return ReportKind.CLUSTER_REPORT;
    }
    throw new InvalidReportException(
        field + ".kind", "'" + apiVersion + " " + kind + "' is not an aggregate kind Tally reads");
  }

  // ---------------------------------------------------------------- results

  /**
   * Results as the wire schema holds them, validated; a result without a source takes {@code
   * defaultSource} (the openreports report-level {@code source}).
   *
   * @throws InvalidReportException naming the first invalid field, such as {@code
   *     results[3].result}
   */
  public static List<Result> decodeResults(
      String field, @Nullable List<WireResult> wire, String defaultSource) {
    if (wire == null) {
      return List.of();
    }
    List<Result> out = new ArrayList<>(wire.size());
    for (int i = 0; i < wire.size(); i++) {
      String path = field + "[" + i + "]";
      WireResult w = wire.get(i);
      if (w == null) {
        throw new InvalidReportException(path, "is null");
      }
      out.add(decodeResult(path, w, defaultSource));
    }
    return out;
  }

  private static Result decodeResult(String path, WireResult w, String defaultSource) {
    if (w.result() == null) {
      throw new InvalidReportException(path + ".result", "is required");
    }
    var b =
        Result.builder()
            .source(w.source() == null || w.source().isEmpty() ? defaultSource : w.source())
            .policy(nonNull(w.policy()))
            .rule(nonNull(w.rule()))
            .status(ResultStatus.fromWire(path + ".result", w.result()))
            .category(nonNull(w.category()))
            .message(nonNull(w.message()))
            .scored(w.scored())
            .properties(w.properties() == null ? Map.of() : w.properties());
    if (w.severity() != null && !w.severity().isEmpty()) {
      b.severity(Severity.fromWire(path + ".severity", w.severity().toLowerCase(Locale.ROOT)));
    }
    if (w.timestamp() != null) {
      b.timestamp(
          Timestamp.of(path + ".timestamp", w.timestamp().seconds(), w.timestamp().nanos()));
    }
    if (w.resources() != null) {
      List<Subject> resources = new ArrayList<>();
      for (int j = 0; j < w.resources().size(); j++) {
        ObjectReference ref = w.resources().get(j);
        resources.add(field(path + ".resources[" + j + "]", () -> subject(ref)));
      }
      b.resources(resources);
    }
    if (w.resourceSelector() != null) {
      b.resourceSelector(field(path + ".resourceSelector", () -> selector(w.resourceSelector())));
    }
    try {
      return b.build();
    } catch (InvalidReportException e) {
      throw e.under(path);
    }
  }

  /** The wire form of one result. */
  public static WireResult encodeResult(Result r) {
    return new WireResult(
        emptyToNull(r.source()),
        r.policy(),
        emptyToNull(r.rule()),
        r.status().wireName(),
        r.severity().map(Severity::wireName).orElse(null),
        emptyToNull(r.category()),
        emptyToNull(r.message()),
        r.scored().orElse(null),
        r.properties().isEmpty() ? null : new TreeMap<>(r.properties()),
        r.timestamp().map(t -> new WireTimestamp(t.seconds(), t.nanos())).orElse(null),
        r.resources().isEmpty()
            ? null
            : r.resources().stream().map(ReportCodec::reference).toList(),
        r.resourceSelector().map(ReportCodec::selector).orElse(null));
  }

  // ---------------------------------------------------------------- partial reports

  /**
   * The partial report object a producer writes for an evaluation: labels for selection, an owner
   * reference to the subject once its uid is known.
   */
  public static CustomResource<PartialReportSpec, Void> encodePartial(
      Evaluation evaluation, String name) {
    Subject subject = evaluation.subject();
    CustomResource<PartialReportSpec, Void> res =
        subject.clusterScoped() ? new ClusterPartialReportResource() : new PartialReportResource();
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(AggregateReport.MANAGED_BY_LABEL, AggregateReport.MANAGED_BY_VALUE);
    labels.put(PRODUCER_LABEL, KubernetesNames.labelValue(evaluation.producer()));
    var meta =
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(subject.clusterScoped() ? null : subject.namespace());
    if (evaluation.adopted()) {
      labels.put(SUBJECT_UID_LABEL, KubernetesNames.labelValue(subject.uid()));
      meta.withOwnerReferences(ownerReference(subject));
    }
    res.setMetadata(meta.withLabels(labels).build());
    List<WireCoverageKey> coverage =
        new TreeSet<>(evaluation.coverage())
            .stream().map(k -> new WireCoverageKey(emptyToNull(k.source()), k.policy())).toList();
    res.setSpec(
        new PartialReportSpec(
            evaluation.producer(),
            reference(subject),
            emptyToNull(evaluation.subjectVersion()),
            new WireTimestamp(evaluation.observedAt().seconds(), evaluation.observedAt().nanos()),
            evaluation.generation(),
            coverage.isEmpty() ? null : coverage,
            evaluation.results().stream().map(ReportCodec::encodeResult).toList()));
    return res;
  }

  /**
   * The evaluation a partial report object states, checked against where the object lives: a
   * PartialReport may only speak about subjects in its own namespace, a ClusterPartialReport only
   * about cluster-scoped subjects.
   *
   * @throws InvalidReportException naming the first invalid field
   */
  public static Evaluation decodePartial(CustomResource<PartialReportSpec, Void> res) {
    PartialReportSpec spec = res.getSpec();
    if (spec == null) {
      throw new InvalidReportException("spec", "is required");
    }
    if (spec.subject() == null) {
      throw new InvalidReportException("spec.subject", "is required");
    }
    Subject subject = field("spec.subject", () -> subject(spec.subject()));
    String objectNamespace = nonNull(res.getMetadata().getNamespace());
    if (!subject.namespace().equals(objectNamespace)) {
      throw new InvalidReportException(
          "spec.subject.namespace",
          objectNamespace.isEmpty()
              ? "'"
                  + subject.namespace()
                  + "' is not allowed: a ClusterPartialReport speaks only about cluster-scoped"
                  + " subjects"
              : "'"
                  + subject.namespace()
                  + "' is not the namespace of the PartialReport '"
                  + objectNamespace
                  + "'");
    }
    if (spec.observedAt() == null) {
      throw new InvalidReportException("spec.observedAt", "is required");
    }
    Timestamp observedAt =
        Timestamp.of("spec.observedAt", spec.observedAt().seconds(), spec.observedAt().nanos());
    Set<CoverageKey> coverage = new TreeSet<>();
    if (spec.coverage() != null) {
      for (int i = 0; i < spec.coverage().size(); i++) {
        WireCoverageKey k = spec.coverage().get(i);
        coverage.add(
            field(
                "spec.coverage[" + i + "]",
                () -> new CoverageKey(nonNull(k.source()), nonNull(k.policy()))));
      }
    }
    List<Result> results = decodeResults("spec.results", spec.results(), "");
    try {
      return new Evaluation(
          nonNull(spec.producer()),
          subject,
          nonNull(spec.subjectVersion()),
          coverage,
          results,
          observedAt,
          spec.generation() == null ? 0 : spec.generation());
    } catch (InvalidReportException e) {
      throw e.under("spec");
    }
  }

  // ---------------------------------------------------------------- pieces

  static OwnerReference ownerReference(Subject owner) {
    var ref = new OwnerReference();
    ref.setApiVersion(owner.apiVersion());
    ref.setKind(owner.kind());
    ref.setName(owner.name());
    ref.setUid(owner.uid());
    ref.setController(true);
    return ref;
  }

  static ObjectReference reference(Subject s) {
    var ref = new ObjectReference();
    ref.setApiVersion(emptyToNull(s.apiVersion()));
    ref.setKind(emptyToNull(s.kind()));
    ref.setNamespace(emptyToNull(s.namespace()));
    ref.setName(emptyToNull(s.name()));
    ref.setUid(emptyToNull(s.uid()));
    return ref;
  }

  static Subject subject(ObjectReference ref) {
    return new Subject(
        nonNull(ref.getApiVersion()),
        nonNull(ref.getKind()),
        nonNull(ref.getNamespace()),
        nonNull(ref.getName()),
        nonNull(ref.getUid()));
  }

  private static io.fabric8.kubernetes.api.model.LabelSelector selector(
      dev.tally.report.api.LabelSelector s) {
    var out = new io.fabric8.kubernetes.api.model.LabelSelector();
    if (!s.matchLabels().isEmpty()) {
      out.setMatchLabels(new TreeMap<>(s.matchLabels()));
    }
    if (!s.matchExpressions().isEmpty()) {
      out.setMatchExpressions(
          s.matchExpressions().stream()
              .map(r -> new LabelSelectorRequirement(r.key(), r.operator(), r.values()))
              .toList());
    }
    return out;
  }

  private static dev.tally.report.api.LabelSelector selector(
      io.fabric8.kubernetes.api.model.LabelSelector s) {
    List<dev.tally.report.api.LabelSelector.Requirement> expressions = new ArrayList<>();
    if (s.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : s.getMatchExpressions()) {
        expressions.add(
            new dev.tally.report.api.LabelSelector.Requirement(
                nonNull(r.getKey()),
                nonNull(r.getOperator()),
                r.getValues() == null ? List.of() : r.getValues()));
      }
    }
    return new dev.tally.report.api.LabelSelector(
        s.getMatchLabels() == null ? Map.of() : s.getMatchLabels(), expressions);
  }

  private static WireConfiguration configuration(ReportConfiguration c) {
    List<String> filter =
        c.statusFilter().isEmpty()
            ? null
            : EnumSet.copyOf(c.statusFilter()).stream().map(ResultStatus::wireName).toList();
    return new WireConfiguration(new WireConfiguration.Limits(c.maxResults(), filter));
  }

  private static ReportConfiguration configuration(WireConfiguration.Limits limits) {
    Set<ResultStatus> filter = EnumSet.noneOf(ResultStatus.class);
    List<String> wire = limits.statusFilter() == null ? List.of() : limits.statusFilter();
    for (int i = 0; i < wire.size(); i++) {
      filter.add(
          ResultStatus.fromWire("configuration.limits.statusFilter[" + i + "]", wire.get(i)));
    }
    // an absent maxResults sets no limit
    int max = limits.maxResults() == null ? Integer.MAX_VALUE : limits.maxResults().intValue();
    return new ReportConfiguration(max, filter);
  }

  private static int count(@Nullable Integer n) {
    return n == null ? 0 : n;
  }

  private static String nonNull(@Nullable String s) {
    return s == null ? "" : s;
  }

  private static @Nullable String emptyToNull(String s) {
    return s.isEmpty() ? null : s;
  }

  /** Runs a conversion, prefixing any validation error with the field path. */
  private static <T> T field(String path, java.util.function.Supplier<T> conversion) {
    try {
      return conversion.get();
    } catch (InvalidReportException e) {
      throw e.under(path);
    }
  }
}
