package dev.tally.report.fabric8.trivy;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.trivy.ConfigAudit;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads a {@code ConfigAuditReport} object into a {@link ConfigAudit}: fields only, each checked
 * for its type, an error naming the field when one is not what the CRD says. Meaning is {@link
 * dev.tally.report.merge.trivy.TrivyMapping}'s.
 */
final class TrivyCodec {
  private TrivyCodec() {}

  /**
   * @throws InvalidReportException naming the field at fault
   */
  static ConfigAudit read(HasMetadata object) {
    if (!(object instanceof GenericKubernetesResource generic)) {
      throw new InvalidReportException(
          "kind", "expected a ConfigAuditReport, was " + object.getClass().getSimpleName());
    }
    ObjectMeta meta = generic.getMetadata();
    Map<String, Object> report =
        map(generic.getAdditionalProperties().get("report"), "report", true);
    List<ConfigAudit.Check> checks = new ArrayList<>();
    Object listed = report.get("checks");
    if (listed != null && !(listed instanceof List<?>)) {
      throw new InvalidReportException("report.checks", "must be a list");
    }
    List<?> entries = listed == null ? List.of() : (List<?>) listed;
    for (int i = 0; i < entries.size(); i++) {
      checks.add(check(entries.get(i), "report.checks[" + i + "]"));
    }
    return new ConfigAudit(
        Objects.requireNonNullElse(meta.getNamespace(), ""),
        meta.getName(),
        owners(meta),
        time(string(report, "updateTimestamp", "report"), "report.updateTimestamp"),
        time(meta.getCreationTimestamp(), "metadata.creationTimestamp"),
        checks);
  }

  private static ConfigAudit.Check check(Object entry, String field) {
    Map<String, Object> check = map(entry, field, true);
    Object success = check.get("success");
    if (!(success instanceof Boolean)) {
      throw new InvalidReportException(field + ".success", "must be true or false");
    }
    Map<String, Object> scope = map(check.get("scope"), field + ".scope", false);
    Object messages = check.get("messages");
    List<String> texts = new ArrayList<>();
    if (messages instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        if (!(list.get(i) instanceof String text)) {
          throw new InvalidReportException(field + ".messages[" + i + "]", "must be a string");
        }
        texts.add(text);
      }
    } else if (messages != null) {
      throw new InvalidReportException(field + ".messages", "must be a list of strings");
    }
    return new ConfigAudit.Check(
        string(check, "checkID", field),
        string(check, "title", field),
        string(check, "severity", field),
        (Boolean) success,
        string(check, "category", field),
        texts,
        string(scope, "type", field + ".scope"),
        string(scope, "value", field + ".scope"));
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

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(@Nullable Object value, String field, boolean required) {
    if (value == null && !required) {
      return Map.of();
    }
    if (!(value instanceof Map<?, ?>)) {
      throw new InvalidReportException(field, value == null ? "is missing" : "must be an object");
    }
    return (Map<String, Object>) value;
  }

  private static String string(Map<String, Object> in, String key, String parent) {
    Object value = in.get(key);
    if (value == null) {
      return "";
    }
    if (!(value instanceof String text)) {
      throw new InvalidReportException(parent + "." + key, "must be a string");
    }
    return text;
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
