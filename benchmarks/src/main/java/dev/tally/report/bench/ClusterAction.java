package dev.tally.report.bench;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;

/** One thing that happens in the simulated cluster between two flushes. */
sealed interface ClusterAction permits ClusterAction.Evaluation, ClusterAction.Deletion {

  /** A producer evaluated a subject: an intermediate report is written. */
  record Evaluation(PartialReport partial) implements ClusterAction {}

  /** A subject was deleted at {@code at}. */
  record Deletion(Subject subject, Timestamp at) implements ClusterAction {}
}
