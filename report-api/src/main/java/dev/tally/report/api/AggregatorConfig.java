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
    layoutOf(grouping);
    Checks.nonNull("format", format);
    Checks.nonNull("limits", limits);
    Checks.nonNull("caps", caps);
    if (tombstoneRetentionSeconds < 0) {
      throw new InvalidReportException("tombstoneRetention", "must not be negative");
    }
  }

  /**
   * The layout of {@code grouping}, checked: Kyverno's layout is one report per resource, so it
   * needs a grouping scoped to its subject.
   *
   * @throws InvalidReportException naming {@code grouping.layout} when the grouping fails, answers
   *     null, or asks for Kyverno's layout without being scoped to its subject
   */
  public static ReportLayout layoutOf(Grouping grouping) {
    Checks.nonNull("grouping", grouping);
    ReportLayout layout;
    boolean scoped;
    try {
      layout = grouping.layout();
      scoped = grouping.scopedToSubject();
    } catch (RuntimeException e) {
      throw new InvalidReportException("grouping.layout", grouping + " failed: " + e);
    }
    Checks.nonNull("grouping.layout", layout);
    if (layout == ReportLayout.KYVERNO && !scoped) {
      throw new InvalidReportException(
          "grouping.layout",
          "KYVERNO is one report per resource: " + grouping + " must be scoped to its subject");
    }
    return layout;
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
