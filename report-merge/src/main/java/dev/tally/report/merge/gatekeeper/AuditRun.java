package dev.tally.report.merge.gatekeeper;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Timestamp;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Which of an export file's lines make a run Tally may apply: only a run that Gatekeeper finished,
 * framed by its start line and its finish line, is {@link Finished}; anything else applies nothing.
 *
 * <p>The disk driver appends a run's lines to {@code <id>.txt} ({@code :} written {@code _}) as the
 * audit goes and renames it {@code .log} after the finish line, but a reader may still meet a file
 * whose last line is half written, a run that crashed before its finish, or (two runs started
 * within one second share a file) a second run appended after a finished one. So the rule is on the
 * lines, not the file's name: the run is the last start line through a finish line of the same id
 * that ends the file; every line between them carries that id. Lines of an event type other than a
 * violation are skipped (a later Gatekeeper may add some); a violation that does not say which
 * constraint or which resource makes the run {@link Invalid}, since a run that cannot be read whole
 * could retract what it does not show.
 */
public sealed interface AuditRun {
  /** The run's id as read from its lines, empty when no line gave one. */
  String id();

  /**
   * A run Gatekeeper finished: every resource it audited is covered.
   *
   * @param id the run's id
   * @param started when the run started: its id, read as a time
   * @param ordinal how many runs of the same id the file holds before this one (two runs started
   *     within one second share a file): 0 but for such a run, so that the later of the two wins
   * @param violations every violation of the run, in the file's order
   */
  record Finished(String id, Timestamp started, int ordinal, List<ExportLine> violations)
      implements AuditRun {
    public Finished {
      InvalidReportException.requireNonNull("id", id);
      InvalidReportException.requireNonNull("started", started);
      if (ordinal < 0) {
        throw new InvalidReportException("ordinal", "must not be negative, was " + ordinal);
      }
      violations = List.copyOf(InvalidReportException.requireNoNulls("violations", violations));
    }
  }

  /**
   * A run not finished yet, or never to be: still being written, crashed, or cut off. It applies
   * nothing; a reader waits for its finish or for the next run.
   *
   * @param reason what is missing, for a log line
   */
  record Unfinished(String id, String reason) implements AuditRun {}

  /**
   * A finished run that cannot be read whole: applying part of it could retract what the rest
   * shows, so none of it applies.
   *
   * @param line the line at fault, counted from 1
   * @param field the field at fault
   * @param reason why
   */
  record Invalid(String id, int line, String field, String reason) implements AuditRun {}

  /**
   * The run that {@code lines}, the text of a whole export file's complete lines in order, hold:
   * each line read as JSON ({@link ExportLine#parse}), then as {@link #of} says. A complete line
   * that cannot be read makes a finished run whose frame holds it {@link Invalid}, naming the line
   * and the field (a run read in part could retract what the line shows); one of an earlier run in
   * the same file is no matter; a run not finished yet stays {@link Unfinished} whatever its lines.
   *
   * @param lines the file's complete lines, without their newlines
   * @param endsWithNewline whether the file ends with a newline; when it does not, its last line is
   *     still being written (and is not among {@code lines}), so no run in it is finished
   */
  static AuditRun read(List<String> lines, boolean endsWithNewline) {
    InvalidReportException.requireNoNulls("lines", lines);
    List<@Nullable ExportLine> decoded = new ArrayList<>(lines.size());
    Map<Integer, InvalidReportException> unreadable = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      try {
        decoded.add(ExportLine.parse(lines.get(i)));
      } catch (InvalidReportException e) {
        decoded.add(null);
        unreadable.put(i, e);
      }
    }
    return frame(decoded, unreadable, endsWithNewline);
  }

  /**
   * The run that {@code lines}, a whole export file's complete lines in order, decoded, hold.
   *
   * @param lines the file's complete lines, decoded
   * @param endsWithNewline whether the file ends with a newline; when it does not, its last line is
   *     still being written (and is not among {@code lines}), so no run in it is finished
   */
  static AuditRun of(List<ExportLine> lines, boolean endsWithNewline) {
    InvalidReportException.requireNoNulls("lines", lines);
    return frame(new ArrayList<>(lines), Map.of(), endsWithNewline);
  }

  /** The rule, over lines of which those at the indices of {@code unreadable} are null. */
  private static AuditRun frame(
      List<@Nullable ExportLine> lines,
      Map<Integer, InvalidReportException> unreadable,
      boolean endsWithNewline) {
    if (lines.isEmpty()) {
      return new Unfinished("", "no line yet");
    }
    int n = lines.size();
    ExportLine last = lines.get(n - 1);
    if (!endsWithNewline) {
      return new Unfinished(last == null ? "" : last.id(), "its last line is still being written");
    }
    if (last == null) {
      return invalid("", n - 1, unreadable);
    }
    if (!last.isFinish()) {
      return new Unfinished(last.id(), "no finish line yet");
    }
    String id = last.id();
    int start = n - 2;
    while (start >= 0 && !isStartOf(lines.get(start), id)) {
      start--;
    }
    if (start < 0) {
      for (int i = n - 2; i >= 0; i--) {
        if (lines.get(i) == null) {
          return invalid(id, i, unreadable); // it may have been the start line
        }
      }
      return new Unfinished(id, "its finish line has no start line before it");
    }
    Timestamp started;
    try {
      var at = OffsetDateTime.parse(id).toInstant();
      started = Timestamp.of("id", at.getEpochSecond(), at.getNano());
    } catch (DateTimeParseException | InvalidReportException e) {
      return new Invalid(id, start + 1, "id", "'" + printable(id) + "' is not an RFC 3339 time");
    }
    List<ExportLine> violations = new ArrayList<>();
    for (int i = start + 1; i < n - 1; i++) {
      ExportLine line = lines.get(i);
      if (line == null) {
        return invalid(id, i, unreadable);
      }
      if (!line.id().equals(id)) {
        return new Unfinished(
            id, "line " + (i + 1) + " belongs to run '" + printable(line.id()) + "'");
      }
      if (line.isStart() || line.isFinish()) {
        return new Unfinished(id, "line " + (i + 1) + " starts or finishes the run again");
      }
      if (!line.isViolation()) {
        continue;
      }
      String missing = missing(line);
      if (!missing.isEmpty()) {
        return new Invalid(id, i + 1, missing, "a violation must name it");
      }
      violations.add(line);
    }
    int ordinal = 0;
    for (int i = 0; i < start; i++) {
      if (isStartOf(lines.get(i), id)) {
        ordinal++;
      }
    }
    return new Finished(id, started, ordinal, violations);
  }

  private static boolean isStartOf(@Nullable ExportLine line, String id) {
    return line != null && line.isStart() && line.id().equals(id);
  }

  private static Invalid invalid(
      String id, int index, Map<Integer, InvalidReportException> unreadable) {
    InvalidReportException e = unreadable.get(index);
    return new Invalid(id, index + 1, e.field(), e.reason());
  }

  /** The first field a violation must have and {@code line} leaves empty; empty if none. */
  private static String missing(ExportLine line) {
    if (line.constraintKind().isEmpty()) {
      return "kind";
    }
    if (line.constraintName().isEmpty()) {
      return "name";
    }
    if (line.resourceApiVersion().isEmpty()) {
      return "resourceAPIVersion";
    }
    if (line.resourceKind().isEmpty()) {
      return "resourceKind";
    }
    if (line.resourceName().isEmpty()) {
      return "resourceName";
    }
    return "";
  }

  private static String printable(String s) {
    return InvalidReportException.printable(s, 100);
  }
}
