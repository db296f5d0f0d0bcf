package dev.tally.report.bench;

/** Whether generated results share their text values, which decides what retained heap measures. */
public enum StringSharing {
  /**
   * Every result holds its own string objects, subject and timestamp, as a JSON decoder produces
   * them: the aggregator's own deduplication is what keeps its heap small. The strings are {@code
   * new String(s)} copies, which share their bytes, so the heap measured is a lower bound of a
   * decoder's.
   */
  DECODED,
  /** Results share equal values: the lower bound a producer that interns could reach. */
  SHARED
}
