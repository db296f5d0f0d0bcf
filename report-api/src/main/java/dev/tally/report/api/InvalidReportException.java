package dev.tally.report.api;

import org.jspecify.annotations.Nullable;

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

  /**
   * {@code value}, or an error naming {@code field} when it is null: for the arguments of public
   * methods, which refuse a null with the field it belongs to instead of a bare {@code
   * NullPointerException}.
   */
  public static <T> T requireNonNull(String field, @Nullable T value) {
    if (value == null) {
      throw new InvalidReportException(field, "is required");
    }
    return value;
  }

  /**
   * {@code values}, or an error naming {@code field[i]} for its first null element (and {@code
   * field} when it is null itself).
   */
  public static <C extends Iterable<?>> C requireNoNulls(String field, @Nullable C values) {
    requireNonNull(field, values);
    int i = 0;
    for (Object v : values) {
      if (v == null) {
        throw new InvalidReportException(field + "[" + i + "]", "is required");
      }
      i++;
    }
    return values;
  }

  /** The same error, one level deeper: {@code prefix + "." + field}. */
  public InvalidReportException under(String prefix) {
    return new InvalidReportException(prefix + "." + field, reason);
  }
}
