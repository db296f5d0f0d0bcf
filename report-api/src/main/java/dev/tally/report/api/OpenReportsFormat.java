package dev.tally.report.api;

/**
 * The {@code openreports.io} format: Report and ClusterReport at {@code v1alpha1}, which add to the
 * common report a report-level {@code source} and {@code configuration.limits} (the limits the
 * aggregate was split by).
 */
public final class OpenReportsFormat extends ReportFormat {
  OpenReportsFormat() {
    super("openreports", ReportKind.REPORT, ReportKind.CLUSTER_REPORT);
  }

  @Override
  public boolean carriesConfiguration() {
    return true;
  }
}
