package dev.tally.report.fabric8.resource;

import static dev.tally.report.fabric8.resource.CodecPieces.field;
import static dev.tally.report.fabric8.resource.CodecPieces.noNullValues;
import static dev.tally.report.fabric8.resource.CodecPieces.nonNull;
import static dev.tally.report.fabric8.resource.CodecPieces.ownerReference;
import static dev.tally.report.fabric8.resource.CodecPieces.subject;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportFormat;
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
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Aggregates (PolicyReport, ClusterPolicyReport, Report, ClusterReport) between the model and their
 * custom resource classes: the class of each kind, and {@link AggregateReport} to {@link
 * AggregateResource} and back, strictly (reading other tools' reports leniently is report-files').
 */
final class AggregateCodec {
  private AggregateCodec() {}

  /**
   * The custom resource class of each aggregate kind, and how to make an empty one: where a new
   * format's resource classes are added, one line each.
   */
  private static final Map<ReportKind, Supplier<AggregateResource>> RESOURCES =
      Map.of(
          ReportKind.POLICY_REPORT, PolicyReportResource::new,
          ReportKind.CLUSTER_POLICY_REPORT, ClusterPolicyReportResource::new,
          ReportKind.REPORT, ReportResource::new,
          ReportKind.CLUSTER_REPORT, ClusterReportResource::new);

  /** The custom resource class of an aggregate kind. */
  static Class<? extends AggregateResource> resourceClass(ReportKind kind) {
    return newResource(kind).getClass();
  }

  /**
   * A new, empty custom resource of an aggregate kind.
   *
   * @throws IllegalArgumentException for a kind without a resource class
   */
  static AggregateResource newResource(ReportKind kind) {
    Supplier<AggregateResource> make = RESOURCES.get(kind);
    if (make == null) {
      throw new IllegalArgumentException("no resource class for " + kind.apiVersion() + " " + kind);
    }
    return make.get();
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
      if (!ReportFormat.of(kind).map(ReportFormat::carriesConfiguration).orElse(false)) {
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

  /**
   * {@link ReportCodec#decode(AggregateResource)}, in full: strict, an aggregate object in the
   * layout of {@link WireResult}.
   */
  static AggregateReport decode(AggregateResource res) {
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
    Optional<ReportConfiguration> configuration = configuration(res.getConfiguration());
    String defaultSource = nonNull(res.getSource());
    List<Result> results = ResultCodec.decodeResults("results", res.getResults(), defaultSource);
    WireSummary ws = res.getSummary();
    Summary summary =
        ws == null
            ? Summary.of(results)
            : field(
                "summary",
                () ->
                    new Summary(
                        count("pass", ws.pass()),
                        count("fail", ws.fail()),
                        count("warn", ws.warn()),
                        count("error", ws.error()),
                        count("skip", ws.skip())));
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

  /** The configuration an object holds, if any; an absent {@code maxResults} sets no limit. */
  static Optional<ReportConfiguration> configuration(@Nullable WireConfiguration wire) {
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
    int max = limits.maxResults() == null ? Integer.MAX_VALUE : limits.maxResults().intValue();
    return Optional.of(new ReportConfiguration(max, filter));
  }

  /** A summary count: absent reads as zero. */
  private static int count(String name, @Nullable Long n) {
    if (n == null) {
      return 0;
    }
    if (n > Integer.MAX_VALUE) {
      // named under summary by the caller's field("summary", ..)
      throw new InvalidReportException(name, "must be at most " + Integer.MAX_VALUE + ", was " + n);
    }
    return n.intValue();
  }
}
