package dev.tally.report.fabric8.internal;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import io.fabric8.kubernetes.api.model.HasMetadata;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The object a log record is about, as the record's fields ({@code kind}, {@code namespace}, {@code
 * name}) rather than words of its message: a log pipeline filters on them, and a JSON backend (the
 * aggregator's {@code --log-format json}) writes them as fields. Values are escaped and bounded
 * here already, since a subject's fields are a tenant's claim and the backend may be any.
 */
public final class LogFields {
  /** The longest value kept: a name is at most 253 characters, a claimed one at most this. */
  private static final int MAX = 600;

  private LogFields() {}

  /** {@code record} about the report {@code ref}. */
  public static LoggingEventBuilder about(LoggingEventBuilder record, ReportRef ref) {
    return fields(record, ref.kind().kind(), ref.namespace(), ref.name());
  }

  /** {@code record} about what {@code subject} names. */
  public static LoggingEventBuilder about(LoggingEventBuilder record, Subject subject) {
    return fields(record, subject.kind(), subject.namespace(), subject.name());
  }

  /** {@code record} about the object {@code object}. */
  public static LoggingEventBuilder about(LoggingEventBuilder record, HasMetadata object) {
    var meta = object.getMetadata();
    return fields(
        record,
        object.getKind() == null ? "" : object.getKind(),
        meta == null || meta.getNamespace() == null ? "" : meta.getNamespace(),
        meta == null || meta.getName() == null ? "" : meta.getName());
  }

  /**
   * {@code namespace/name} of {@code subject} (its name alone when cluster-scoped) for a log
   * message: escaped and bounded, so that a tenant's claim cannot forge a line.
   */
  public static String where(Subject subject) {
    return InvalidReportException.printable(
        subject.namespace().isEmpty() ? subject.name() : subject.namespace() + "/" + subject.name(),
        MAX);
  }

  private static LoggingEventBuilder fields(
      LoggingEventBuilder record, String kind, String namespace, String name) {
    record.addKeyValue("kind", InvalidReportException.printable(kind, MAX));
    if (!namespace.isEmpty()) {
      record.addKeyValue("namespace", InvalidReportException.printable(namespace, MAX));
    }
    return record.addKeyValue("name", InvalidReportException.printable(name, MAX));
  }
}
