package dev.tally.report.merge.trivy;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.names.ClusterScopedKinds;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What one trivy-operator config audit report says, as a Tally {@link PartialReport}: the rule of
 * docs/DESIGN.md, "trivy-operator's config audit reports". Pure: a {@link ConfigAudit} in, a
 * partial report out, or an {@link InvalidReportException} naming the field at fault.
 *
 * <ul>
 *   <li><b>Producer</b>: {@code trivy-operator/config-audit}.
 *   <li><b>Subject</b>: the report's controller owner reference (else its first), in the report's
 *       own namespace: trivy-operator makes each report owned by the resource it scanned, so
 *       garbage collection removes the report with it. A report without one is refused, and so is
 *       one whose owner is of a cluster-scoped kind ({@link ClusterScopedKinds}: trivy-operator
 *       reports those in ClusterConfigAuditReports, so it is a claim about something outside the
 *       report's namespace).
 *   <li><b>Coverage</b>: one key, ({@code trivy}, {@code config-audit}). A report is the whole of
 *       one scan of its resource, and trivy-operator by default records failed checks only, so the
 *       checks it lists cannot be the coverage: a check fixed since the last scan is simply absent.
 *       With the whole scan as the coverage, absence retracts it, and a report with no checks at
 *       all retracts every earlier failure.
 *   <li><b>Results</b>: one per check: rule = {@code checkID}, status {@code pass} when {@code
 *       success} else {@code fail}, severity from trivy's ({@code UNKNOWN} is none), category, the
 *       messages joined by "; " (the title without messages), and properties {@code title} and,
 *       when scoped, {@code scope} ({@code Container/nginx}).
 *   <li><b>observedAt</b>: {@code report.updateTimestamp}, else the report's creation time.
 * </ul>
 */
public final class TrivyMapping {
  private TrivyMapping() {}

  /** The producer of every partial report this mapping makes. */
  public static final String PRODUCER = "trivy-operator/config-audit";

  /** The source of every result, and of the one coverage key. */
  public static final String SOURCE = "trivy";

  /** The policy every result belongs to: the config audit scan as a whole. */
  public static final String POLICY = "config-audit";

  /**
   * What {@code audit} says.
   *
   * @throws InvalidReportException naming the field at fault (such as {@code
   *     metadata.ownerReferences} or {@code report.checks[2].severity})
   */
  public static PartialReport map(ConfigAudit audit) {
    // trivy-operator makes the scanned resource the report's controller owner
    ConfigAudit.Owner owner =
        audit.owners().stream()
            .filter(ConfigAudit.Owner::controller)
            .findFirst()
            .or(() -> audit.owners().stream().findFirst())
            .orElseThrow(
                () ->
                    new InvalidReportException(
                        "metadata.ownerReferences",
                        "a ConfigAuditReport names the resource it is about by its owner"
                            + " reference; it has none"));
    if (ClusterScopedKinds.contains(owner.apiVersion(), owner.kind())) {
      // trivy-operator reports cluster-scoped resources in ClusterConfigAuditReports; a namespaced
      // report owned by one is a tenant's claim about something outside its namespace
      throw new InvalidReportException(
          "metadata.ownerReferences",
          "names "
              + owner.kind()
              + " "
              + owner.name()
              + " ("
              + owner.apiVersion()
              + "), which is cluster-scoped: a ConfigAuditReport is about a resource of its own"
              + " namespace");
    }
    Timestamp observedAt =
        audit
            .updated()
            .or(audit::created)
            .orElseThrow(
                () ->
                    new InvalidReportException(
                        "report.updateTimestamp",
                        "neither it nor metadata.creationTimestamp says when the scan was made"));
    Subject subject =
        Subject.of(owner.apiVersion(), owner.kind(), audit.namespace(), owner.name(), owner.uid());
    List<Result> results = new ArrayList<>();
    for (int i = 0; i < audit.checks().size(); i++) {
      results.add(result(audit.checks().get(i), "report.checks[" + i + "]", observedAt));
    }
    return PartialReport.builder()
        .producer(PRODUCER)
        .subject(subject)
        .coverage(Set.of(CoverageKey.of(SOURCE, POLICY)))
        .results(results)
        .observedAt(observedAt)
        .build();
  }

  private static Result result(ConfigAudit.Check check, String field, Timestamp at) {
    if (check.checkId().isEmpty()) {
      throw new InvalidReportException(field + ".checkID", "must not be empty");
    }
    Map<String, String> properties = new LinkedHashMap<>();
    if (!check.title().isEmpty()) {
      properties.put("title", check.title());
    }
    if (!check.scopeType().isEmpty() || !check.scopeValue().isEmpty()) {
      properties.put("scope", check.scopeType() + "/" + check.scopeValue());
    }
    String message =
        check.messages().isEmpty() ? check.title() : String.join("; ", check.messages());
    return Result.builder()
        .source(SOURCE)
        .policy(POLICY)
        .rule(check.checkId())
        .status(check.success() ? ResultStatus.PASS : ResultStatus.FAIL)
        .severity(severity(check.severity(), field + ".severity"))
        .category(check.category())
        .message(message)
        .properties(properties)
        .timestamp(at)
        .build();
  }

  private static @org.jspecify.annotations.Nullable Severity severity(String value, String field) {
    return switch (value.toUpperCase(Locale.ROOT)) {
      case "CRITICAL" -> Severity.CRITICAL;
      case "HIGH" -> Severity.HIGH;
      case "MEDIUM" -> Severity.MEDIUM;
      case "LOW" -> Severity.LOW;
      case "UNKNOWN", "" -> null;
      default ->
          throw new InvalidReportException(
              field,
              "'"
                  + value
                  + "' is not one of trivy's severities CRITICAL, HIGH, MEDIUM, LOW, UNKNOWN");
    };
  }
}
