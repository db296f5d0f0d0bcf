package dev.tally.report.api.testing;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Timestamp;

/** One input event of an aggregator, so a test can replay, permute and split event streams. */
public sealed interface AggregatorEvent {

  void applyTo(ReportAggregator aggregator);

  /** A producer's partial report. */
  record Apply(PartialReport partial) implements AggregatorEvent {
    @Override
    public void applyTo(ReportAggregator aggregator) {
      aggregator.apply(partial);
    }

    @Override
    public String toString() {
      return "apply "
          + partial.producer()
          + " "
          + partial.subject().uid()
          + " @"
          + partial.observedAt()
          + "/"
          + partial.generation()
          + " cov="
          + partial.effectiveCoverage()
          + " "
          + partial.results();
    }
  }

  /** A subject's deletion, in its namespace ("" when cluster-scoped). */
  record Delete(String namespace, String uid, Timestamp deletedAt) implements AggregatorEvent {
    @Override
    public void applyTo(ReportAggregator aggregator) {
      aggregator.deleteSubject(namespace, uid, deletedAt);
    }

    @Override
    public String toString() {
      return "delete " + namespace + "/" + uid + " @" + deletedAt;
    }
  }
}
