package dev.tally.report.api;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The openreports {@code configuration.limits}: how many results a report holds at most and which
 * statuses it keeps. Written into every openreports aggregate so readers know results were
 * filtered.
 *
 * @param maxResults at most this many results per report object
 * @param statusFilter the statuses kept; empty keeps all
 */
public record ReportConfiguration(int maxResults, Set<ResultStatus> statusFilter) {
  public ReportConfiguration {
    if (maxResults < 1) {
      throw new InvalidReportException(
          "configuration.limits.maxResults", "must be at least 1, was " + maxResults);
    }
    // in wire order, so the written configuration is the same in every run
    Checks.setOf("configuration.limits.statusFilter", statusFilter);
    statusFilter =
        Collections.unmodifiableSet(
            statusFilter.isEmpty()
                ? EnumSet.noneOf(ResultStatus.class)
                : EnumSet.copyOf(statusFilter));
  }
}
