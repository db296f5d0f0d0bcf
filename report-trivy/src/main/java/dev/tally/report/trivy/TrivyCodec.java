package dev.tally.report.trivy;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.trivy.ConfigAudit;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads a {@code ConfigAuditReport}, as the informer decoded it ({@link
 * ConfigAuditReportResource}), into a {@link ConfigAudit}: fields only, an error naming the field
 * when one is missing or past a bound. Meaning is {@link
 * dev.tally.report.merge.trivy.TrivyMapping}'s.
 *
 * <p>The bounds refuse a report no scan writes, before anything is made of it. trivy-operator
 * writes one check per finding of a scan (one of trivy's few hundred Kubernetes rules, and the part
 * of the resource it found, a container say), each with at most one message, and its ids, titles
 * and messages are a few hundred characters long. The lists are bounded while the report is parsed
 * ({@link ConfigAuditReportData.Bounded}): a report past a bound never holds more than the bound's
 * worth. A string is held at its length until the report is refused, no more than its JSON took. A
 * refused report is then held by the informer as its identity alone, as every refused object is.
 */
final class TrivyCodec {
  /**
   * The most checks a report may list: trivy's Kubernetes rules failing, each for a dozen
   * containers, and the aggregator's default cap on the results of one partial report ({@code
   * maxResultsPerPartial}).
   */
  static final int MAX_CHECKS = 5_000;

  /** The most messages a check may have: trivy-operator writes at most one. */
  static final int MAX_MESSAGES = 100;

  /**
   * The longest string read (an id, a title, a message, a scope, the update time): Tally's own
   * bound on a result's message, 16 KiB, where trivy's are a few hundred characters.
   */
  static final int MAX_TEXT = 16 * 1024;

  private TrivyCodec() {}

  /**
   * @throws InvalidReportException naming the field at fault
   */
  static ConfigAudit read(HasMetadata object) {
    if (!(object instanceof ConfigAuditReportResource typed)) {
      throw new InvalidReportException(
          "kind", "expected a ConfigAuditReport, was " + object.getClass().getSimpleName());
    }
    ObjectMeta meta = typed.getMetadata();
    ConfigAuditReportData report = typed.getReport();
    if (report == null) {
      throw new InvalidReportException("report", "is missing");
    }
    ConfigAuditReportData.Checks entries =
        report.checks() == null ? new ConfigAuditReportData.Checks() : report.checks();
    bounded(entries.added(), MAX_CHECKS, "report.checks", "checks");
    List<ConfigAudit.Check> checks = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      checks.add(check(entries.get(i), "report.checks[" + i + "]"));
    }
    return new ConfigAudit(
        Objects.requireNonNullElse(meta.getNamespace(), ""),
        meta.getName(),
        owners(meta),
        time(text(report.updateTimestamp(), "report.updateTimestamp"), "report.updateTimestamp"),
        time(meta.getCreationTimestamp(), "metadata.creationTimestamp"),
        checks);
  }

  private static ConfigAudit.Check check(
      ConfigAuditReportData.@Nullable Check check, String field) {
    if (check == null) {
      throw new InvalidReportException(field, "must be an object");
    }
    if (check.success() == null) {
      throw new InvalidReportException(field + ".success", "must be true or false");
    }
    ConfigAuditReportData.Messages messages =
        check.messages() == null ? new ConfigAuditReportData.Messages() : check.messages();
    bounded(messages.added(), MAX_MESSAGES, field + ".messages", "messages");
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      String message = messages.get(i);
      String at = field + ".messages[" + i + "]";
      if (message == null) {
        throw new InvalidReportException(at, "must be a string");
      }
      texts.add(text(message, at));
    }
    ConfigAuditReportData.Scope scope = check.scope();
    return new ConfigAudit.Check(
        text(check.checkID(), field + ".checkID"),
        text(check.title(), field + ".title"),
        text(check.severity(), field + ".severity"),
        check.success(),
        text(check.category(), field + ".category"),
        texts,
        text(scope == null ? null : scope.type(), field + ".scope.type"),
        text(scope == null ? null : scope.value(), field + ".scope.value"));
  }

  private static List<ConfigAudit.Owner> owners(ObjectMeta meta) {
    List<OwnerReference> owners = meta.getOwnerReferences();
    if (owners == null) {
      return List.of();
    }
    return owners.stream()
        .map(
            o ->
                new ConfigAudit.Owner(
                    Objects.requireNonNullElse(o.getApiVersion(), ""),
                    Objects.requireNonNullElse(o.getKind(), ""),
                    Objects.requireNonNullElse(o.getName(), ""),
                    Objects.requireNonNullElse(o.getUid(), ""),
                    Boolean.TRUE.equals(o.getController())))
        .toList();
  }

  /** {@code value}, "" when absent, refused past {@link #MAX_TEXT} characters. */
  private static String text(@Nullable String value, String field) {
    if (value == null) {
      return "";
    }
    if (value.length() > MAX_TEXT) {
      throw new InvalidReportException(
          field, "is " + value.length() + " characters long, at most " + MAX_TEXT + " allowed");
    }
    return value;
  }

  private static void bounded(int count, int max, String field, String what) {
    if (count > max) {
      throw new InvalidReportException(
          field, "has " + count + " " + what + ", at most " + max + " allowed");
    }
  }

  private static Optional<Timestamp> time(@Nullable String value, String field) {
    if (value == null || value.isEmpty()) {
      return Optional.empty();
    }
    try {
      Instant instant = OffsetDateTime.parse(value).toInstant();
      return Optional.of(Timestamp.of(field, instant.getEpochSecond(), instant.getNano()));
    } catch (DateTimeParseException e) {
      throw new InvalidReportException(field, "is not an RFC 3339 time: '" + value + "'");
    }
  }
}
