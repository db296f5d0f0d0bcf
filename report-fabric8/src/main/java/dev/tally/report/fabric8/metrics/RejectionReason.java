package dev.tally.report.fabric8.metrics;

import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.InvalidReportException;

/**
 * Why a partial report object was rejected, decided from the exception that refused it, here and
 * nowhere else; what {@link TallyMetrics#partialRejected} receives. {@link #metricName()} is the
 * lower-case name a metrics binding uses as a tag value.
 */
public enum RejectionReason {
  /** A cap of the aggregator ({@code InputCaps}): it would hold more than agreed. */
  CAPACITY("capacity"),
  /**
   * A namespace was refused (the field's path ends in {@code namespace}): mostly a subject or an
   * object outside the partial report's own namespace (design, section 5, rule 6), but also a
   * namespace that is no valid one, which the exception does not tell apart.
   */
  NAMESPACE("namespace"),
  /** Any other refusal: validation of the object, or the aggregator's. */
  INVALID("invalid");

  private final String metricName;

  RejectionReason(String metricName) {
    this.metricName = metricName;
  }

  /** The reason of a refusal: a cap first, then a refused namespace, else invalid. */
  public static RejectionReason of(InvalidReportException e) {
    if (e instanceof CapacityExceededException) {
      return CAPACITY;
    }
    if (e.field().endsWith("namespace")) {
      return NAMESPACE;
    }
    return INVALID;
  }

  /** The reason as a metric tag value: {@code capacity}, {@code namespace} or {@code invalid}. */
  public String metricName() {
    return metricName;
  }
}
