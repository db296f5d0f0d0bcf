package dev.tally.report.fabric8.input;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;

/** What one input object states, as its input reads it ({@link ReportInput#decode}). */
public sealed interface Statement {
  /** A partial report for the aggregator. */
  record Ready(PartialReport partial) implements Statement {}

  /** An evaluation about a subject whose uid is not known yet: adoption finds it. */
  record AwaitsAdoption(Subject subject) implements Statement {}

  /** Nothing: no result and no coverage. */
  record Silent() implements Statement {}
}
