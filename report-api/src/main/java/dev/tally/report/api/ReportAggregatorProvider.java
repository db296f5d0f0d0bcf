package dev.tally.report.api;

/**
 * The service-provider interface behind {@link ReportAggregator#builder()}: an implementation
 * module (report-merge) registers one in {@code META-INF/services}. Exactly one must be on the
 * class path.
 */
public interface ReportAggregatorProvider {
  /** A new, empty aggregator with this configuration. */
  ReportAggregator create(AggregatorConfig config);
}
