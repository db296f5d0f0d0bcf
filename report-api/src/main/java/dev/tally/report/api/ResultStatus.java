package dev.tally.report.api;

import java.util.Locale;

/** The outcome of a result, with the wire names of both report formats. */
public enum ResultStatus {
  PASS("pass"),
  FAIL("fail"),
  WARN("warn"),
  ERROR("error"),
  SKIP("skip");

  private final String wireName;

  ResultStatus(String wireName) {
    this.wireName = wireName;
  }

  /** The name in JSON: {@code pass}, {@code fail}, {@code warn}, {@code error}, {@code skip}. */
  public String wireName() {
    return wireName;
  }

  /**
   * Parses a wire name.
   *
   * @param field the field path to name in the error
   * @throws InvalidReportException if {@code value} is not one of the five wire names
   */
  public static ResultStatus fromWire(String field, String value) {
    Checks.nonNull("field", field);
    for (ResultStatus s : values()) {
      if (s.wireName.equals(value)) {
        return s;
      }
    }
    throw new InvalidReportException(
        field, "unknown status '" + value + "', expected one of pass, fail, warn, error, skip");
  }

  @Override
  public String toString() {
    return wireName.toLowerCase(Locale.ROOT);
  }
}
