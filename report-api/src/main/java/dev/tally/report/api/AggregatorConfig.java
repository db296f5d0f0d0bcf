package dev.tally.report.api;

/**
 * Everything a {@link ReportAggregator} is built from.
 *
 * @param grouping which results go into which aggregate
 * @param format the output format
 * @param limits per-object limits and the status filter
 * @param caps protection against runaway producers
 * @param tombstoneRetentionSeconds how long a deleted subject stays deleted for late, older reports
 */
public record AggregatorConfig(
    Grouping grouping,
    ReportFormat format,
    ReportLimits limits,
    InputCaps caps,
    long tombstoneRetentionSeconds) {
  public AggregatorConfig {
    Checks.nonNull("grouping", grouping);
    Checks.groupingId("grouping.id", groupingId(grouping));
    Checks.nonNull("format", format);
    Checks.nonNull("limits", limits);
    Checks.nonNull("caps", caps);
    if (tombstoneRetentionSeconds < 0) {
      throw new InvalidReportException("tombstoneRetention", "must not be negative");
    }
  }

  private static String groupingId(Grouping grouping) {
    String id;
    try {
      id = grouping.id();
    } catch (RuntimeException e) {
      throw new InvalidReportException("grouping.id", grouping + ".id() failed: " + e);
    }
    return Checks.nonNull("grouping.id", id);
  }
}
