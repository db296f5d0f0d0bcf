package dev.tally.aggregator.log;

/** How the aggregator writes a log record: one line either way ({@code --log-format}). */
public enum LogFormat {
  /**
   * {@code time LEVEL Logger - message key=value ...}, for a person reading a terminal or {@code
   * kubectl logs}.
   */
  TEXT,
  /**
   * One JSON object a line: {@code time}, {@code level}, {@code logger}, {@code message}, then the
   * record's fields ({@code namespace}, {@code name}, ...) and {@code error}, for a log pipeline.
   */
  JSON
}
