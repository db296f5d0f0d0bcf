package dev.tally.aggregator.log;

import dev.tally.report.api.InvalidReportException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.event.Level;

/**
 * One log record as one line of text or JSON. Every string that may come from a tenant (the
 * message, a field's value, an exception's message) is escaped, so that no record can end a line or
 * forge another, and bounded in length, so that one record cannot flood the log.
 */
final class LogLine {
  /** The longest message kept, in characters; the rest is cut and its length said. */
  static final int MAX_MESSAGE = 4096;

  /** The longest value of a field kept. */
  static final int MAX_VALUE = 512;

  /** The longest exception (its stack trace and causes) kept. */
  static final int MAX_ERROR = 16384;

  private static final DateTimeFormatter TIME = DateTimeFormatter.ISO_INSTANT;

  private LogLine() {}

  /**
   * The record as one line ending in a newline. {@code fields} are the record's key-value pairs
   * (keys are the code's own names, values anything).
   */
  static String format(
      LogFormat format,
      Instant time,
      Level level,
      String logger,
      String message,
      List<Map.Entry<String, @Nullable Object>> fields,
      @Nullable Throwable error) {
    // to the millisecond, as a pipeline's parsers and people expect
    Entry e = new Entry(time.truncatedTo(ChronoUnit.MILLIS), level, logger, message, fields, error);
    return format == LogFormat.JSON ? json(e) : text(e);
  }

  /** What one record says. */
  private record Entry(
      Instant time,
      Level level,
      String logger,
      String message,
      List<Map.Entry<String, @Nullable Object>> fields,
      @Nullable Throwable error) {}

  private static String text(Entry e) {
    String logger = e.logger();
    String message = e.message();
    Throwable error = e.error();
    StringBuilder b = new StringBuilder(96 + message.length());
    b.append(TIME.format(e.time())).append(' ').append(e.level()).append(' ');
    b.append(logger, logger.lastIndexOf('.') + 1, logger.length()).append(" - ");
    b.append(InvalidReportException.printable(message, MAX_MESSAGE));
    for (Map.Entry<String, @Nullable Object> field : e.fields()) {
      String value = InvalidReportException.printable(String.valueOf(field.getValue()), MAX_VALUE);
      b.append(' ').append(InvalidReportException.printable(field.getKey(), 64)).append('=');
      if (value.isEmpty() || value.chars().anyMatch(c -> c == ' ' || c == '"' || c == '=')) {
        b.append('"').append(value.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
      } else {
        b.append(value);
      }
    }
    if (error != null) {
      // the trace's own lines begin with a tab, never with a time: a message inside it that holds
      // a newline cannot pass for a record
      for (String line : trace(error).split("\n", -1)) {
        if (!line.isEmpty()) {
          b.append("\n\t").append(InvalidReportException.printable(line, MAX_ERROR));
        }
      }
    }
    return b.append('\n').toString();
  }

  private static String json(Entry e) {
    String message = e.message();
    StringBuilder b = new StringBuilder(128 + message.length());
    b.append("{\"time\":\"").append(TIME.format(e.time())).append('"');
    b.append(",\"level\":\"").append(e.level()).append('"');
    b.append(",\"logger\":");
    string(b, e.logger(), 256);
    b.append(",\"message\":");
    string(b, message, MAX_MESSAGE);
    for (Map.Entry<String, @Nullable Object> field : e.fields()) {
      String key = field.getKey();
      if (List.of("time", "level", "logger", "message", "error").contains(key)) {
        key = "field." + key; // a record's own keys are never overwritten by a field
      }
      b.append(',');
      string(b, key, 64);
      b.append(':');
      Object value = field.getValue();
      if (value == null) {
        b.append("null");
      } else if (value instanceof Integer || value instanceof Long || value instanceof Boolean) {
        b.append(value);
      } else {
        string(b, String.valueOf(value), MAX_VALUE);
      }
    }
    Throwable error = e.error();
    if (error != null) {
      b.append(",\"error\":");
      string(b, trace(error), MAX_ERROR);
    }
    return b.append("}\n").toString();
  }

  /** {@code s} as a JSON string, cut to {@code max} characters and the length it had. */
  private static void string(StringBuilder b, String s, int max) {
    String kept = s.length() <= max ? s : s.substring(0, max) + "… (" + s.length() + " characters)";
    b.append('"');
    for (int i = 0; i < kept.length(); i++) {
      char c = kept.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20
              || c == 0x7f
              || c == '\u2028'
              || c == '\u2029'
              || Character.isSurrogate(c) && !pairedSurrogate(kept, i)) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }

  /** Whether the surrogate at {@code i} is half of a well-formed pair (else it cannot be UTF-8). */
  private static boolean pairedSurrogate(String s, int i) {
    char c = s.charAt(i);
    return Character.isHighSurrogate(c)
        ? i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))
        : i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
  }

  private static String trace(Throwable error) {
    StringWriter out = new StringWriter();
    try (PrintWriter writer = new PrintWriter(out)) {
      error.printStackTrace(writer);
    }
    String trace = out.toString().replace("\r\n", "\n");
    return trace.length() <= MAX_ERROR
        ? trace
        : trace.substring(0, MAX_ERROR) + "… (" + trace.length() + " characters)";
  }
}
