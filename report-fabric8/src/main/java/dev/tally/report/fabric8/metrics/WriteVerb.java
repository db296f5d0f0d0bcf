package dev.tally.report.fabric8.metrics;

/**
 * How Tally wrote an object, as {@link TallyMetrics} hears it. {@link #metricName()} is the
 * lower-case name a metrics binding uses as a tag value.
 */
public enum WriteVerb {
  /** A new object (POST). */
  CREATE("create"),
  /** A replacement of an object Tally read or wrote before, with its resourceVersion (PUT). */
  UPDATE("update"),
  /** A server-side apply (PATCH with the field manager {@code tally}). */
  APPLY("apply"),
  /** A removal (DELETE). */
  DELETE("delete");

  private final String metricName;

  WriteVerb(String metricName) {
    this.metricName = metricName;
  }

  /**
   * The verb as a metric tag value: {@code create}, {@code update}, {@code apply}, {@code delete}.
   */
  public String metricName() {
    return metricName;
  }
}
