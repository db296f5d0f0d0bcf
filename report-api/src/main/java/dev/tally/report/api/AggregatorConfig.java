package dev.tally.report.api;

/**
 * Everything a {@link ReportAggregator} is built from.
 *
 * @param grouping which results go into which aggregate
 * @param format the output format
 * @param limits per-object limits and the status filter
 * @param caps protection against runaway producers
 * @param tombstoneRetentionSeconds how long a deleted subject stays deleted for late, older reports
 * @param input the name of the input aggregated ({@link #DEFAULT_INPUT}, Tally's own partial
 *     reports, unless the partial reports come from another tool): in Tally's layout the aggregates
 *     of any other input carry it in their names and in the {@code tally.dev/input} label, and an
 *     aggregator owns only its own input's (docs/DESIGN.md §4.3, §4.4, §6.8). Runs of lowercase
 *     letters and digits joined by single '-', at most 63 characters
 */
public record AggregatorConfig(
    Grouping grouping,
    ReportFormat format,
    ReportLimits limits,
    InputCaps caps,
    long tombstoneRetentionSeconds,
    String input) {
  /**
   * The name of the default input, Tally's own partial reports: its aggregates carry no input label
   * and are named as before inputs had names, so an aggregator of the default input writes what it
   * always wrote.
   */
  public static final String DEFAULT_INPUT = "tally";

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
    Checks.inputName("input", Checks.nonNull("input", input));
  }

  /** A configuration of the default input ({@link #DEFAULT_INPUT}). */
  public AggregatorConfig(
      Grouping grouping,
      ReportFormat format,
      ReportLimits limits,
      InputCaps caps,
      long tombstoneRetentionSeconds) {
    this(grouping, format, limits, caps, tombstoneRetentionSeconds, DEFAULT_INPUT);
  }

  /** Whether the input is the default one, whose aggregates carry no input label. */
  public boolean hasDefaultInput() {
    return input.equals(DEFAULT_INPUT);
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
    if (layout.needsSubjectScope() && !scoped) {
      throw new InvalidReportException(
          "grouping.layout",
          layout + " is one report per resource: " + grouping + " must be scoped to its subject");
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
