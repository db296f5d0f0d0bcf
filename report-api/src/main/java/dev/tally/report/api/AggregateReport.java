package dev.tally.report.api;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One aggregate object as Tally wants it written (or as it was observed in a cluster): a
 * PolicyReport, ClusterPolicyReport, Report or ClusterReport.
 *
 * @param ref kind, namespace and name
 * @param labels the object's labels; on what Tally writes in its own layout, {@code
 *     app.kubernetes.io/managed-by: tally}, {@code tally.dev/group} and {@code tally.dev/grouping};
 *     in Kyverno's layout only {@code app.kubernetes.io/managed-by: kyverno}
 * @param scope the single subject this report is about (per-subject grouping), if any
 * @param owner the object that owns this report (its ownerReference), if any
 * @param configuration the openreports {@code configuration}, if any
 * @param results the results, in canonical order for what Tally produces
 * @param summary counts of {@code results} by status
 * @param contentHash a digest of everything above but the name; equal content, equal hash. Empty
 *     when not known (an observed object that carried none)
 */
public record AggregateReport(
    ReportRef ref,
    Map<String, String> labels,
    Optional<Subject> scope,
    Optional<Subject> owner,
    Optional<ReportConfiguration> configuration,
    List<Result> results,
    Summary summary,
    String contentHash) {

  public AggregateReport {
    Checks.nonNull("ref", ref);
    labels = Checks.stringMap("labels", labels, 63);
    Checks.nonNull("scope", scope);
    Checks.nonNull("owner", owner);
    Checks.nonNull("configuration", configuration);
    results = Checks.listOf("results", results);
    Checks.nonNull("summary", summary);
    Checks.text("contentHash", contentHash);
  }

  /** Whether Tally owns this object: it carries {@code app.kubernetes.io/managed-by: tally}. */
  public boolean ownedByTally() {
    return ownedBy(ReportLayout.TALLY);
  }

  /**
   * Whether an aggregator of {@code layout} owns this object: its {@code
   * app.kubernetes.io/managed-by} label is {@link ReportLayout#managedBy()}.
   */
  public boolean ownedBy(ReportLayout layout) {
    return Checks.nonNull("layout", layout).manages(labels);
  }

  /** The same report with another content hash, as a codec attaches a stored one. */
  public AggregateReport withContentHash(String hash) {
    return new AggregateReport(ref, labels, scope, owner, configuration, results, summary, hash);
  }
}
