package dev.tally.report.files;

import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportKind;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The published API versions of the aggregate kinds that the codec reads and writes, and what tells
 * them apart on the wire. {@code wgpolicyk8s.io/v1alpha1} was served with more than one result
 * schema, and a result holds what any of them named ({@link ReadReportCodec#fromV1alpha1} reads
 * them): the final schema names the outcome {@code status} and the properties {@code data}; the
 * schema of March 2021 (which kube-bench's adapter, among others, published through) names them
 * {@code result} and {@code properties} and has a result {@code timestamp}. No v1alpha1 schema has
 * a result {@code source}. {@code wgpolicyk8s.io/v1alpha2} and {@code openreports.io/v1alpha1}
 * share the layout of {@link dev.tally.report.fabric8.resource.WireResult}, and only openreports
 * has the top-level {@code source} and {@code configuration}.
 */
enum WireVersion {
  WGPOLICY_V1ALPHA1(
      "wgpolicyk8s.io",
      "v1alpha1",
      ReportKind.POLICY_REPORT,
      ReportKind.CLUSTER_POLICY_REPORT,
      true),
  WGPOLICY_V1ALPHA2(
      "wgpolicyk8s.io",
      "v1alpha2",
      ReportKind.POLICY_REPORT,
      ReportKind.CLUSTER_POLICY_REPORT,
      false),
  OPENREPORTS_V1ALPHA1(
      "openreports.io", "v1alpha1", ReportKind.REPORT, ReportKind.CLUSTER_REPORT, false);

  private static final Set<String> REFERENCE_FIELDS =
      Set.of("apiVersion", "kind", "namespace", "name", "uid", "fieldPath", "resourceVersion");
  private static final Set<String> SELECTOR_FIELDS = Set.of("matchLabels", "matchExpressions");
  private static final Set<String> REQUIREMENT_FIELDS = Set.of("key", "operator", "values");
  private static final Set<String> SUMMARY_FIELDS = Set.of("pass", "fail", "warn", "error", "skip");
  private static final Set<String> TIMESTAMP_FIELDS = Set.of("seconds", "nanos");
  private static final Set<String> CONFIGURATION_FIELDS = Set.of("limits");
  private static final Set<String> LIMITS_FIELDS = Set.of("maxResults", "statusFilter");

  private final String group;
  private final String version;
  private final ReportKind namespacedKind;
  private final ReportKind clusterKind;
  private final boolean legacyResults;

  WireVersion(
      String group,
      String version,
      ReportKind namespacedKind,
      ReportKind clusterKind,
      boolean legacyResults) {
    this.group = group;
    this.version = version;
    this.namespacedKind = namespacedKind;
    this.clusterKind = clusterKind;
    this.legacyResults = legacyResults;
  }

  String apiVersion() {
    return group + "/" + version;
  }

  String group() {
    return group;
  }

  /**
   * Whether results use the v1alpha1 names (either spelling of the outcome and of the properties)
   * and lack {@code source}.
   */
  boolean legacyResults() {
    return legacyResults;
  }

  /** Whether the kind is one of this version's two kinds. */
  boolean has(ReportKind kind) {
    return kind.equals(namespacedKind) || kind.equals(clusterKind);
  }

  /** The version an object of {@code apiVersion} is in, if the codec knows it. */
  static Optional<WireVersion> of(String apiVersion) {
    return Arrays.stream(values()).filter(v -> v.apiVersion().equals(apiVersion)).findFirst();
  }

  /** The version Tally writes a kind in: the one {@link ReportKind} names. */
  static WireVersion current(ReportKind kind) {
    return of(kind.apiVersion()).orElseThrow();
  }

  /**
   * The versions of a group the codec knows, such as {@code [v1alpha1, v1alpha2]}, for messages.
   */
  static List<String> versionsOf(String group) {
    return Arrays.stream(values()).filter(v -> v.group.equals(group)).map(v -> v.version).toList();
  }

  /** Every version the codec reads, for messages. */
  static String known() {
    return Arrays.stream(values())
        .collect(
            Collectors.groupingBy(
                v -> v.namespacedKind.kind() + " and " + v.clusterKind.kind() + " of " + v.group,
                LinkedHashMap::new,
                Collectors.mapping(v -> v.version, Collectors.joining(", "))))
        .entrySet()
        .stream()
        .map(e -> e.getKey() + " " + e.getValue())
        .collect(Collectors.joining("; "));
  }

  // ------------------------------------------------------------ the fields of each version's
  // schema

  /** The top-level fields of this version's schema. */
  Set<String> topFields() {
    return ReportFormat.of(namespacedKind).map(ReportFormat::carriesConfiguration).orElse(false)
        ? Set.of(
            "apiVersion",
            "kind",
            "metadata",
            "scope",
            "scopeSelector",
            "configuration",
            "source",
            "summary",
            "results")
        : Set.of("apiVersion", "kind", "metadata", "scope", "scopeSelector", "summary", "results");
  }

  /**
   * The fields of one result in this version's schema; for {@code wgpolicyk8s.io/v1alpha1}, in any
   * of the schemas it was served with (the final one and that of March 2021).
   */
  Set<String> resultFields() {
    return legacyResults
        ? Set.of(
            "policy",
            "rule",
            "status",
            "result",
            "severity",
            "category",
            "message",
            "scored",
            "data",
            "properties",
            "timestamp",
            "resources",
            "resourceSelector")
        : Set.of(
            "source",
            "policy",
            "rule",
            "result",
            "severity",
            "category",
            "message",
            "scored",
            "properties",
            "timestamp",
            "resources",
            "resourceSelector");
  }

  /** What this version calls a result field that the other layout has, for messages. */
  Map<String, String> resultRenames() {
    return legacyResults ? Map.of() : Map.of("status", "result", "data", "properties");
  }

  static Set<String> referenceFields() {
    return REFERENCE_FIELDS;
  }

  static Set<String> selectorFields() {
    return SELECTOR_FIELDS;
  }

  static Set<String> requirementFields() {
    return REQUIREMENT_FIELDS;
  }

  static Set<String> summaryFields() {
    return SUMMARY_FIELDS;
  }

  static Set<String> timestampFields() {
    return TIMESTAMP_FIELDS;
  }

  static Set<String> configurationFields() {
    return CONFIGURATION_FIELDS;
  }

  static Set<String> limitsFields() {
    return LIMITS_FIELDS;
  }
}
