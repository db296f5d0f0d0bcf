package dev.tally.report.api;

/**
 * Bad input: names the field path and the reason, for example {@code results[3].timestamp.nanos:
 * must be in [0, 999999999]}. Whatever raised it changed nothing.
 */
public class InvalidReportException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String reason;

  public InvalidReportException(String field, String reason) {
    super(field + ": " + reason);
    this.field = field;
    this.reason = reason;
  }

  /** The path of the offending field, such as {@code results[3].policy}. */
  public String field() {
    return field;
  }

  /** Why the value was refused. */
  public String reason() {
    return reason;
  }

  /** The same error, one level deeper: {@code prefix + "." + field}. */
  public InvalidReportException under(String prefix) {
    return new InvalidReportException(prefix + "." + field, reason);
  }
}
