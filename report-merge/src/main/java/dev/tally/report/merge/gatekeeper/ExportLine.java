package dev.tally.report.merge.gatekeeper;

import dev.tally.report.api.InvalidReportException;
import java.util.List;

/**
 * One line of an audit run's export file, as plain data: what the adapter decodes from the JSON
 * object before anything decides what it means. A field the line leaves out is empty, as Gatekeeper
 * leaves out every empty field.
 *
 * <p>Three kinds of line share the shape: the run's start and its finish carry only {@code id} and
 * {@code message} ({@link #START_MESSAGE}, {@link #FINISH_MESSAGE}); a violation carries {@code
 * eventType} {@link #VIOLATION}, the constraint ({@code group}, {@code version}, {@code kind},
 * {@code name}) and the resource ({@code resourceGroup}, {@code resourceAPIVersion} (only the
 * version), {@code resourceKind}, {@code resourceNamespace}, {@code resourceName}).
 *
 * @param id the audit run's id: the time it started, RFC 3339 in UTC
 * @param eventType {@link #VIOLATION} for a violation, empty on the start and finish lines
 * @param message the start or finish message, or the violation's message
 * @param constraintGroup the constraint's API group ({@code group})
 * @param constraintVersion the constraint's API version ({@code version})
 * @param constraintKind the constraint's kind, which is its template's kind ({@code kind})
 * @param constraintName the constraint's name ({@code name})
 * @param enforcementAction {@code deny}, {@code dryrun}, {@code warn}, or {@code scoped}
 * @param enforcementActions the audit's actions of a {@code scoped} constraint
 * @param resourceGroup the resource's API group, empty for the core group
 * @param resourceApiVersion the resource's API version without its group ({@code
 *     resourceAPIVersion})
 * @param resourceKind the resource's kind
 * @param resourceNamespace the resource's namespace, empty when it is cluster-scoped
 * @param resourceName the resource's name
 */
public record ExportLine(
    String id,
    String eventType,
    String message,
    String constraintGroup,
    String constraintVersion,
    String constraintKind,
    String constraintName,
    String enforcementAction,
    List<String> enforcementActions,
    String resourceGroup,
    String resourceApiVersion,
    String resourceKind,
    String resourceNamespace,
    String resourceName) {
  /** The {@code message} of a run's first line. */
  public static final String START_MESSAGE = "audit is started";

  /** The {@code message} of a run's last line, written once every violation is. */
  public static final String FINISH_MESSAGE = "audit is completed";

  /** The {@code eventType} of a violation. */
  public static final String VIOLATION = "violation_audited";

  public ExportLine {
    InvalidReportException.requireNonNull("id", id);
    InvalidReportException.requireNonNull("eventType", eventType);
    InvalidReportException.requireNonNull("message", message);
    InvalidReportException.requireNonNull("group", constraintGroup);
    InvalidReportException.requireNonNull("version", constraintVersion);
    InvalidReportException.requireNonNull("kind", constraintKind);
    InvalidReportException.requireNonNull("name", constraintName);
    InvalidReportException.requireNonNull("enforcementAction", enforcementAction);
    enforcementActions =
        List.copyOf(
            InvalidReportException.requireNoNulls("enforcementActions", enforcementActions));
    InvalidReportException.requireNonNull("resourceGroup", resourceGroup);
    InvalidReportException.requireNonNull("resourceAPIVersion", resourceApiVersion);
    InvalidReportException.requireNonNull("resourceKind", resourceKind);
    InvalidReportException.requireNonNull("resourceNamespace", resourceNamespace);
    InvalidReportException.requireNonNull("resourceName", resourceName);
  }

  /**
   * One line of an export file, read as JSON: the object's fields above, every other field skipped
   * at any depth without being built, nothing after the object.
   *
   * @throws InvalidReportException naming the field (empty for the line itself) and the reason
   */
  public static ExportLine parse(String line) {
    return ExportJson.parse(InvalidReportException.requireNonNull("line", line));
  }

  /** A run's start line. */
  public static ExportLine start(String id) {
    return new ExportLine(id, "", START_MESSAGE, "", "", "", "", "", List.of(), "", "", "", "", "");
  }

  /** A run's finish line. */
  public static ExportLine finish(String id) {
    return new ExportLine(
        id, "", FINISH_MESSAGE, "", "", "", "", "", List.of(), "", "", "", "", "");
  }

  /** Whether this is a run's start line: no event type, the start message. */
  public boolean isStart() {
    return eventType.isEmpty() && message.equals(START_MESSAGE);
  }

  /** Whether this is a run's finish line: no event type, the finish message. */
  public boolean isFinish() {
    return eventType.isEmpty() && message.equals(FINISH_MESSAGE);
  }

  /** Whether this is a violation. */
  public boolean isViolation() {
    return eventType.equals(VIOLATION);
  }
}
