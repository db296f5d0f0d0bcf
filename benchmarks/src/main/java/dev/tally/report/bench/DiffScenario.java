package dev.tally.report.bench;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Timestamp;
import java.util.List;

/**
 * A cluster whose aggregates are one step behind: {@code observed} is what the aggregator published
 * for the initial scan of a workload (with real content hashes), and the aggregator has since taken
 * rescans that change one result in {@code changed} of those aggregates.
 */
record DiffScenario(ReportAggregator aggregator, List<AggregateReport> observed, int changed) {

  /** 1% of the aggregates changed (at least one). */
  static DiffScenario onePercentChanged(ReferenceWorkload workload, Grouping grouping) {
    ReportAggregator aggregator = ReportAggregator.builder().grouping(grouping).build();
    for (PartialReport p : workload.partials()) {
      aggregator.apply(p);
    }
    aggregator.flush();
    List<AggregateReport> observed = aggregator.aggregates();
    int changed = Math.max(1, observed.size() / 100);
    // Subjects 0..changed-1 lie in distinct namespaces (round-robin) and are distinct subjects, so
    // under every built-in grouping each rescan changes a different aggregate.
    for (int i = 0; i < changed; i++) {
      aggregator.apply(
          workload.rescan(
              i,
              workload.flippedResults(i, 0),
              Timestamp.ofSeconds(ReferenceWorkload.RESCAN_SECONDS + i)));
    }
    return new DiffScenario(aggregator, observed, changed);
  }
}
