package dev.tally.report.api;

/** How critical a result is, with the wire names of both report formats. */
public enum Severity {
  CRITICAL("critical"),
  HIGH("high"),
  MEDIUM("medium"),
  LOW("low"),
  INFO("info");

  private final String wireName;

  Severity(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /**
   * Parses a wire name.
   *
   * @throws InvalidReportException if {@code value} is not a known severity
   */
  public static Severity fromWire(String field, String value) {
    Checks.nonNull("field", field);
    for (Severity s : values()) {
      if (s.wireName.equals(value)) {
        return s;
      }
    }
    throw new InvalidReportException(
        field,
        "unknown severity '" + value + "', expected one of critical, high, medium, low, info");
  }

  @Override
  public String toString() {
    return wireName;
  }
}
