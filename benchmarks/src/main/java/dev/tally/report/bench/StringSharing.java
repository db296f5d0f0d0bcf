package dev.tally.report.bench;

/** Whether generated results share their text values, which decides what retained heap measures. */
public enum StringSharing {
  /**
   * Every result holds its own copies of its strings, subject and timestamp, as a JSON decoder
   * produces them: the aggregator's own deduplication is what keeps its heap small.
   */
  DECODED,
  /** Results share equal values: the lower bound a producer that interns could reach. */
  SHARED
}
