package dev.tally.report.api;

import java.util.EnumSet;
import java.util.Set;

/**
 * What one written aggregate may hold. Every partition Tally writes respects both limits; a group
 * that exceeds them is split.
 *
 * @param maxResults most results in one object
 * @param maxBytes most bytes of the object's encoded JSON as Tally writes it; the default 1 MiB
 *     stays under etcd's 1.5 MiB request limit with room for what the API server adds
 * @param statusFilter results whose status is not in this set are left out of aggregates; empty
 *     keeps every status
 */
public record ReportLimits(int maxResults, int maxBytes, Set<ResultStatus> statusFilter) {
  public static final int DEFAULT_MAX_RESULTS = 1000;
  public static final int DEFAULT_MAX_BYTES = 1024 * 1024;

  /**
   * The smallest {@code maxBytes} accepted. It leaves more than three quarters for results beside
   * the largest envelope (metadata, scope, owner, summary, configuration) an aggregate can have:
   * about 12 KiB when reports are scoped to a subject whose fields are all at their longest and
   * escaped to 6 bytes a char, about 1 KiB otherwise. A result larger than an aggregate has room
   * for is refused when applied.
   */
  public static final int MIN_MAX_BYTES = 64 * 1024;

  public ReportLimits {
    if (maxResults < 1) {
      throw new InvalidReportException(
          "limits.maxResults", "must be at least 1, was " + maxResults);
    }
    if (maxBytes < MIN_MAX_BYTES) {
      throw new InvalidReportException(
          "limits.maxBytes", "must be at least " + MIN_MAX_BYTES + ", was " + maxBytes);
    }
    statusFilter = Checks.setOf("limits.statusFilter", statusFilter);
  }

  public static ReportLimits defaults() {
    return new ReportLimits(DEFAULT_MAX_RESULTS, DEFAULT_MAX_BYTES, Set.of());
  }

  public ReportLimits withMaxResults(int max) {
    return new ReportLimits(max, maxBytes, statusFilter);
  }

  public ReportLimits withMaxBytes(int max) {
    return new ReportLimits(maxResults, max, statusFilter);
  }

  public ReportLimits withStatusFilter(Set<ResultStatus> statuses) {
    return new ReportLimits(maxResults, maxBytes, statuses);
  }

  /** Whether a result with this status is kept. */
  public boolean keeps(ResultStatus status) {
    Checks.nonNull("status", status);
    return statusFilter.isEmpty() || statusFilter.contains(status);
  }

  /** The openreports {@code configuration} these limits are written as. */
  public ReportConfiguration configuration() {
    return new ReportConfiguration(
        maxResults, statusFilter.isEmpty() ? Set.of() : EnumSet.copyOf(statusFilter));
  }
}
