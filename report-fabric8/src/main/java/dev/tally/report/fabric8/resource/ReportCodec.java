package dev.tally.report.fabric8.resource;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.merge.KubernetesNames;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
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
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Converts between the immutable report-api model and the custom resource classes, field by field
 * and nothing more: {@code decode(encode(r))} equals {@code r}. Decoding validates through the
 * model, so a bad object fails with an {@link InvalidReportException} naming the field path, such
 * as {@code results[3].result}.
 *
 * <h2>Reading what other tools publish</h2>
 *
 * <p>{@link #read(String, String)} reads YAML or JSON text: several documents (separators may carry
 * comments, {@code --- # second report}), {@code kubectl get -o yaml} dumps (a {@code v1 List}
 * whose {@code items} are reports) and typed lists ({@code PolicyReportList}). It reads {@code
 * wgpolicyk8s.io/v1alpha1} and {@code v1alpha2} PolicyReport and ClusterPolicyReport, and {@code
 * openreports.io/v1alpha1} Report and ClusterReport; any other kind or version is refused, naming
 * it. Each report comes back as a {@link ReadReport} that says which version it came from, keeps
 * the fields the model has no place for, and lists {@link CodecWarning}s (also logged at WARN).
 * {@link #encode(ReadReport)} writes it back in that same version; only {@link #convert(ReadReport,
 * String)} changes the version. Errors are {@link ReportReadException}s naming the document, the
 * line and the field path, as in {@code document 2 (line 14): results[3].result: unknown status
 * 'wrong', expected one of pass, fail, warn, error, skip}.
 *
 * <p>What the official CRDs accept but the model cannot hold is read after one of these
 * normalisations, each with a warning naming the field; nothing else is changed:
 *
 * <ul>
 *   <li>{@code timestamp.nanos} outside [0, 999999999]: the instant {@code seconds + nanos / 10^9}
 *       is kept by carrying whole seconds, {@code seconds += floorDiv(nanos, 10^9)} and {@code
 *       nanos = floorMod(nanos, 10^9)} (so 1500000000 nanos add one second and leave 500000000, and
 *       -1 nanos take one second away and leave 999999999), which is how Go's {@code time.Unix},
 *       and so every Go consumer of these CRDs, reads such a value.
 *   <li>{@code timestamp.seconds} outside [0, {@value Timestamp#MAX_SECONDS}] as published or after
 *       that carry: clamped to the nearest instant the model holds, 0 s 0 ns or {@value
 *       Timestamp#MAX_SECONDS} s 999999999 ns.
 *   <li>a negative {@code summary} count: read as 0.
 *   <li>{@code configuration.limits.maxResults} below 1: read as no limit, as if absent.
 *   <li>{@code metadata.name} absent (hand-written examples and test fixtures): read as {@code
 *       unnamed-<document>}, or {@code unnamed-<document>-<item>} in a List.
 * </ul>
 *
 * <p>A namespaced report without a namespace lands in the default namespace given, as {@code
 * kubectl apply} would put it; an {@code openreports.io} document that says {@code PolicyReport} or
 * {@code ClusterPolicyReport} is read as Report or ClusterReport, with a warning; fields that are
 * not in the schema of the object's version (an API server would prune them) are dropped with a
 * warning.
 */
public final class ReportCodec {
  private static final Logger LOG = LoggerFactory.getLogger(ReportCodec.class);
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

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

  /**
   * Binds a JSON tree to the resource class of {@code kind}. fabric8 picks the class by apiVersion
   * and kind, so while it binds, the tree names the class's own; the object keeps the apiVersion
   * the tree had.
   *
   * @throws IllegalArgumentException if the tree does not bind, with Jackson's exception (which
   *     names the path) as its cause
   */
  static AggregateResource bind(ObjectNode tree, ReportKind kind) {
    JsonNode apiVersion = tree.get("apiVersion");
    tree.put("apiVersion", kind.apiVersion());
    tree.put("kind", kind.kind());
    AggregateResource res = SERIALIZATION.convertValue(tree, resourceClass(kind));
    res.setApiVersion(
        apiVersion != null && apiVersion.isString() ? apiVersion.asString() : kind.apiVersion());
    return res;
  }

  /** The JSON of an aggregate object. */
  static String toJson(AggregateResource res) {
    return SERIALIZATION.asJson(res);
  }

  /** An aggregate object from its {@link #toJson} form, whatever version it names. */
  static AggregateResource fromJson(String json, ReportKind kind) {
    return bind(SERIALIZATION.unmarshal(json, ObjectNode.class), kind);
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
      meta.withAnnotations(Map.of(WireNames.CONTENT_HASH_ANNOTATION, report.contentHash()));
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
   * Strict: the object must be exactly what the model holds, as everything Tally writes is; use
   * {@link #read(AggregateResource)} for objects other tools wrote.
   *
   * @throws InvalidReportException naming the first invalid field
   */
  public static AggregateReport decode(AggregateResource res) {
    return decode(res, null);
  }

  /**
   * Decodes an aggregate object in the layout of {@link WireResult}. With a list of warnings the
   * decoding is lenient and applies the normalisations of the class comment, adding a warning for
   * each; without, it is strict.
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
    List<Result> results = decodeResults("results", res.getResults(), defaultSource, warnings);
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
  private static Optional<Subject> owner(@Nullable List<OwnerReference> refs, String namespace) {
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

  // ---------------------------------------------------------------- other tools' reports

  /**
   * Reads published reports from YAML or JSON text, one or several documents, as the class comment
   * describes. A namespaced report without a namespace lands in {@code defaultNamespace}.
   *
   * @return the reports in the order of the text, items of a List in their order
   * @throws ReportReadException naming the document, the line and the field if a document is not a
   *     report (or a List of reports) of a kind and version the codec reads, or is invalid
   */
  public static List<ReadReport> read(String text, String defaultNamespace) {
    return ReportReader.read(text, defaultNamespace);
  }

  /**
   * The reports of {@link #read(String, String)}, without what was read about them.
   *
   * @throws ReportReadException as {@link #read(String, String)}
   */
  public static List<AggregateReport> readDocuments(String text, String defaultNamespace) {
    return read(text, defaultNamespace).stream().map(ReadReport::report).toList();
  }

  /**
   * Reads an aggregate object another tool wrote, such as one listed from a cluster: leniently,
   * with the normalisations of the class comment, in the version its {@code apiVersion} names.
   *
   * @throws InvalidReportException naming the first invalid field, or if the object's version is
   *     not one the codec reads
   */
  public static ReadReport read(AggregateResource res) {
    ReportKind kind = res.reportKind();
    String apiVersion = res.getApiVersion() == null ? kind.apiVersion() : res.getApiVersion();
    WireVersion version =
        WireVersion.of(apiVersion)
            .filter(v -> v.has(kind))
            .orElseThrow(
                () ->
                    new InvalidReportException(
                        "apiVersion",
                        "'"
                            + apiVersion
                            + "' is not a version of "
                            + kind.kind()
                            + " that Tally reads; it reads "
                            + WireVersion.known()));
    AggregateResource copy = fromJson(toJson(res), kind);
    if (version.legacyResults()) {
      copy.setResults(
          copy.getResults().stream().map(w -> w == null ? null : w.fromV1alpha1()).toList());
    }
    List<CodecWarning> warnings = new ArrayList<>();
    AggregateReport report;
    try {
      report = decode(copy, warnings);
    } catch (InvalidReportException e) {
      throw new InvalidReportException(version.wirePath(e.field()), e.reason());
    }
    warnings =
        warnings.stream()
            .map(w -> new CodecWarning(version.wirePath(w.field()), w.message()))
            .toList();
    for (CodecWarning w : warnings) {
      LOG.warn("{} ({}): {}", report.ref(), apiVersion, w);
    }
    return new ReadReport(report, apiVersion, warnings, copy);
  }

  /**
   * The object to write for a report read from another tool, in the version it was read in: what
   * {@link #encode(AggregateReport)} writes for its report, plus what the model has no place for.
   * Metadata is the metadata as read (annotations, uid, resourceVersion, creationTimestamp and
   * all), with the report's name, namespace, labels and content hash; the top-level {@code source}
   * and {@code scopeSelector} are written as read; scope, owner references, configuration and each
   * result are written exactly as read as long as the report still holds what they were read as,
   * and from the report otherwise.
   *
   * <p>The object is of the class of its kind but its {@code apiVersion} is the one it was read in:
   * write it out with {@link io.fabric8.kubernetes.client.utils.Serialization}, or to a cluster
   * through a client for that version.
   *
   * @throws InvalidReportException if the report holds what its version has no field for (a {@code
   *     wgpolicyk8s.io/v1alpha1} result has no {@code source} and no {@code timestamp}), or a
   *     wgpolicy report carries a configuration
   */
  public static AggregateResource encode(ReadReport read) {
    AggregateReport report = read.report();
    WireVersion version = WireVersion.of(read.apiVersion()).orElseThrow();
    checkWritable(report, version, false);
    AggregateResource out = encode(report);
    AggregateResource kept = read.wire();
    if (kept != null) {
      restore(out, kept, report);
    }
    if (version.legacyResults()) {
      out.setResults(out.getResults().stream().map(WireResult::toV1alpha1).toList());
    }
    out.setApiVersion(version.apiVersion());
    return out;
  }

  /**
   * The same read report in another version of its kind, such as {@code wgpolicyk8s.io/v1alpha2}
   * for one read as {@code v1alpha1}: the only way the codec changes a version.
   *
   * @throws InvalidReportException if the codec does not write {@code apiVersion}, it has no such
   *     kind, or the report holds what that version cannot (a {@code wgpolicyk8s.io/v1alpha1}
   *     result has no source, no timestamp and only the severities high, medium and low)
   */
  public static ReadReport convert(ReadReport read, String apiVersion) {
    ReportKind kind = read.report().ref().kind();
    WireVersion target =
        WireVersion.of(apiVersion)
            .orElseThrow(
                () ->
                    new InvalidReportException(
                        "apiVersion",
                        "'"
                            + apiVersion
                            + "' is not a version Tally writes; it writes "
                            + WireVersion.known()));
    if (!target.has(kind)) {
      throw new InvalidReportException(
          "apiVersion", "'" + apiVersion + "' has no kind " + kind.kind());
    }
    checkWritable(read.report(), target, true);
    return read.inVersion(target.apiVersion());
  }

  private static final Set<Severity> V1ALPHA1_SEVERITIES =
      EnumSet.of(Severity.HIGH, Severity.MEDIUM, Severity.LOW);

  private static void checkWritable(AggregateReport report, WireVersion version, boolean values) {
    if (!version.legacyResults()) {
      return;
    }
    for (int i = 0; i < report.results().size(); i++) {
      Result r = report.results().get(i);
      String path = "results[" + i + "]";
      if (!r.source().isEmpty()) {
        throw new InvalidReportException(
            path + ".source",
            "'" + r.source() + "' cannot be written: " + version.apiVersion() + " has no source");
      }
      if (r.timestamp().isPresent()) {
        throw new InvalidReportException(
            path + ".timestamp",
            "cannot be written: " + version.apiVersion() + " has no result timestamp");
      }
      if (values && r.severity().filter(s -> !V1ALPHA1_SEVERITIES.contains(s)).isPresent()) {
        throw new InvalidReportException(
            path + ".severity",
            "'"
                + r.severity().get().wireName()
                + "' is not a severity of "
                + version.apiVersion()
                + " (high, medium, low)");
      }
    }
  }

  /** Puts back into {@code out} what {@code kept} holds and the model has no place for. */
  private static void restore(
      AggregateResource out, AggregateResource kept, AggregateReport report) {
    ObjectMeta model = out.getMetadata();
    ObjectMeta meta = kept.getMetadata() == null ? new ObjectMeta() : kept.getMetadata();
    String namespace = nonNull(model.getNamespace());
    Optional<Subject> keptOwner;
    try {
      keptOwner = owner(meta.getOwnerReferences(), namespace);
    } catch (InvalidReportException e) {
      keptOwner = Optional.empty();
    }
    meta.setName(model.getName());
    meta.setNamespace(model.getNamespace());
    meta.setLabels(model.getLabels());
    Map<String, String> annotations =
        new LinkedHashMap<>(meta.getAnnotations() == null ? Map.of() : meta.getAnnotations());
    annotations.remove(WireNames.CONTENT_HASH_ANNOTATION);
    if (!report.contentHash().isEmpty()) {
      annotations.put(WireNames.CONTENT_HASH_ANNOTATION, report.contentHash());
    }
    meta.setAnnotations(annotations.isEmpty() ? null : annotations);
    if (!keptOwner.equals(report.owner())) {
      meta.setOwnerReferences(model.getOwnerReferences());
    }
    out.setMetadata(meta);

    if (kept.getScope() != null
        && report.scope().equals(optional(() -> subject(kept.getScope())))) {
      out.setScope(kept.getScope());
    }
    out.setScopeSelector(kept.getScopeSelector());
    if (report.ref().kind().openReports()) {
      out.setSource(kept.getSource());
      if (kept.getConfiguration() != null
          && report
              .configuration()
              .equals(
                  optional(() -> configuration(kept.getConfiguration(), new ArrayList<>()))
                      .flatMap(c -> c))) {
        out.setConfiguration(kept.getConfiguration());
      }
    }

    // each result as it was written, while the report still holds what it was read as
    Map<Result, ArrayDeque<WireResult>> asRead = new HashMap<>();
    String defaultSource = nonNull(kept.getSource());
    for (WireResult w : kept.getResults()) {
      if (w != null) {
        optional(() -> decodeResult("results[0]", w, defaultSource, new ArrayList<>()))
            .ifPresent(r -> asRead.computeIfAbsent(r, k -> new ArrayDeque<>()).add(w));
      }
    }
    List<WireResult> results = new ArrayList<>(out.getResults());
    for (int i = 0; i < results.size(); i++) {
      ArrayDeque<WireResult> same = asRead.get(report.results().get(i));
      if (same != null && !same.isEmpty()) {
        results.set(i, same.poll());
      }
    }
    out.setResults(results);
  }

  /** The value of a conversion, or empty if it does not convert. */
  private static <T> Optional<T> optional(java.util.function.Supplier<T> conversion) {
    try {
      return Optional.ofNullable(conversion.get());
    } catch (InvalidReportException e) {
      return Optional.empty();
    }
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
    return decodeResults(field, wire, defaultSource, null);
  }

  private static List<Result> decodeResults(
      String field,
      @Nullable List<WireResult> wire,
      String defaultSource,
      @Nullable List<CodecWarning> warnings) {
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
      out.add(decodeResult(path, w, defaultSource, warnings));
    }
    return out;
  }

  private static Result decodeResult(
      String path, WireResult w, String defaultSource, @Nullable List<CodecWarning> warnings) {
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
            .properties(
                w.properties() == null
                    ? Map.of()
                    : noNullValues(path + ".properties", w.properties()));
    if (w.severity() != null && !w.severity().isEmpty()) {
      b.severity(Severity.fromWire(path + ".severity", w.severity().toLowerCase(Locale.ROOT)));
    }
    if (w.timestamp() != null) {
      b.timestamp(timestamp(path + ".timestamp", w.timestamp(), warnings));
    }
    if (w.resources() != null) {
      List<Subject> resources = new ArrayList<>();
      for (int j = 0; j < w.resources().size(); j++) {
        ObjectReference ref = w.resources().get(j);
        String at = path + ".resources[" + j + "]";
        if (ref == null) {
          throw new InvalidReportException(at, "is null");
        }
        resources.add(field(at, () -> subject(ref)));
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

  /**
   * A timestamp; when lenient, one outside the model's range is normalised as the class comment
   * says, with a warning naming the field.
   */
  private static Timestamp timestamp(
      String path, WireTimestamp t, @Nullable List<CodecWarning> warnings) {
    if (warnings == null) {
      return Timestamp.of(path, t.seconds(), t.nanos());
    }
    long seconds = t.seconds();
    long nanos = t.nanos();
    if (nanos < 0 || nanos >= NANOS_PER_SECOND) {
      long carried = Math.floorDiv(nanos, NANOS_PER_SECOND);
      seconds =
          carried > 0 && seconds > Long.MAX_VALUE - carried
              ? Long.MAX_VALUE
              : carried < 0 && seconds < Long.MIN_VALUE - carried
                  ? Long.MIN_VALUE
                  : seconds + carried;
      nanos = Math.floorMod(nanos, NANOS_PER_SECOND);
      warnings.add(
          new CodecWarning(
              path + ".nanos",
              t.nanos()
                  + " is outside [0, 999999999]; read as the same instant, seconds "
                  + seconds
                  + " and nanos "
                  + nanos
                  + " (whole seconds carried)"));
    }
    if (seconds < 0) {
      warnings.add(
          new CodecWarning(
              path + ".seconds",
              seconds + " is before 1970-01-01T00:00:00Z; read as seconds 0 and nanos 0"));
      seconds = 0;
      nanos = 0;
    } else if (seconds > Timestamp.MAX_SECONDS) {
      warnings.add(
          new CodecWarning(
              path + ".seconds",
              seconds
                  + " is after 9999-12-31T23:59:59Z; read as seconds "
                  + Timestamp.MAX_SECONDS
                  + " and nanos 999999999"));
      seconds = Timestamp.MAX_SECONDS;
      nanos = NANOS_PER_SECOND - 1;
    }
    return Timestamp.of(path, seconds, (int) nanos);
  }

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

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
      PartialReport evaluation, String name) {
    Subject subject = evaluation.subject();
    CustomResource<PartialReportSpec, Void> res =
        subject.clusterScoped() ? new ClusterPartialReportResource() : new PartialReportResource();
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_VALUE);
    labels.put(WireNames.PRODUCER_LABEL, KubernetesNames.labelValue(evaluation.producer()));
    var meta =
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(subject.clusterScoped() ? null : subject.namespace());
    if (evaluation.adopted()) {
      labels.put(WireNames.SUBJECT_UID_LABEL, KubernetesNames.labelValue(subject.uid()));
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
  public static PartialReport decodePartial(CustomResource<PartialReportSpec, Void> res) {
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
      return new PartialReport(
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

  /**
   * The configuration an object holds, if any; when lenient, a {@code maxResults} below 1 reads as
   * no limit, with a warning.
   */
  private static Optional<ReportConfiguration> configuration(
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
  private static int count(
      String name, @Nullable Integer n, @Nullable List<CodecWarning> warnings) {
    if (n == null) {
      return 0;
    }
    if (n < 0 && warnings != null) {
      warnings.add(new CodecWarning("summary." + name, n + " is negative; read as 0"));
      return 0;
    }
    return n;
  }

  /** A string map without null values, which the schemas do not allow and the model cannot hold. */
  private static Map<String, String> noNullValues(String path, Map<String, String> map) {
    for (var e : map.entrySet()) {
      if (e.getValue() == null) {
        throw new InvalidReportException(path + "[" + e.getKey() + "]", "is null");
      }
    }
    return map;
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
