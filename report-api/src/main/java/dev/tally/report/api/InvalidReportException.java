package dev.tally.report.api;

import org.jspecify.annotations.Nullable;

/**
 * Bad input: names the field path and the reason, for example {@code results[3].timestamp.nanos:
 * must be in [0, 999999999]}. Whatever raised it changed nothing.
 *
 * <p>Its text reaches logs and Kubernetes Events, and often quotes what a tenant wrote: the field
 * path is cut to {@link #MAX_FIELD} characters and the reason to {@link #MAX_REASON}, and control
 * characters (line breaks included) are escaped (a backslash, {@code u} and four hex digits), so
 * that one refusal is one bounded line whatever the input held.
 */
public class InvalidReportException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** The longest field path kept. */
  public static final int MAX_FIELD = 256;

  /** The longest reason kept. */
  public static final int MAX_REASON = 512;

  private final String field;
  private final String reason;

  public InvalidReportException(String field, String reason) {
    this(printable(field, MAX_FIELD), printable(reason, MAX_REASON), true);
  }

  /** Already printable: {@code field} and {@code reason} are kept as they are. */
  private InvalidReportException(String field, String reason, boolean printable) {
    super(field + ": " + reason);
    this.field = field;
    this.reason = reason;
  }

  /**
   * {@code s} with control characters escaped (a backslash, {@code u} and four hex digits) and cut
   * to {@code max} characters, an ellipsis and the length it had: how a log line or an Event quotes
   * a tenant's value, so that it stays one bounded line.
   */
  public static String printable(String s, int max) {
    StringBuilder b = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
        if (b == null) {
          b = new StringBuilder(s.length() + 16).append(s, 0, i);
        }
        b.append(String.format("\\u%04x", (int) c));
      } else if (b != null) {
        b.append(c);
      }
    }
    String out = b == null ? s : b.toString();
    return out.length() <= max
        ? out
        : out.substring(0, max) + "… (" + out.length() + " characters)";
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
    return new InvalidReportException(printable(prefix + "." + field, MAX_FIELD), reason, true);
  }
}
