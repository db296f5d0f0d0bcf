package dev.tally.report.merge;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportAggregatorProvider;

/** Registers {@link DefaultReportAggregator} behind {@link ReportAggregator#builder()}. */
public final class DefaultReportAggregatorProvider implements ReportAggregatorProvider {
  @Override
  public ReportAggregator create(AggregatorConfig config) {
    return new DefaultReportAggregator(config);
  }
}
