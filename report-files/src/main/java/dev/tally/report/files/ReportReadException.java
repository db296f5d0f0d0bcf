package dev.tally.report.files;

import dev.tally.report.api.InvalidReportException;

/**
 * A published report {@link ReportFiles} could not read: which document of the text, the line the
 * parser gave, the field path inside the document and the reason, as in {@code document 2 (line
 * 14): results[3].result: unknown status 'wrong', expected one of pass, fail, warn, error, skip}.
 * Documents are counted from 1 in the order they appear, leaving out empty ones; lines are those of
 * the whole text, counted from 1.
 */
public final class ReportReadException extends InvalidReportException {
  private static final long serialVersionUID = 1L;

  private final int document;
  private final int line;

  /**
   * @param document the document, counted from 1
   * @param line the line in the text, counted from 1; 0 when not known
   * @param field the path of the field inside the document; empty when the document as a whole is
   *     at fault
   * @param reason why it was refused
   */
  public ReportReadException(int document, int line, String field, String reason) {
    super(field, reason);
    this.document = document;
    this.line = line;
  }

  /** The document, counted from 1. */
  public int document() {
    return document;
  }

  /** The line in the text, counted from 1; 0 when the parser did not give one. */
  public int line() {
    return line;
  }

  @Override
  public String getMessage() {
    return "document "
        + document
        + (line > 0 ? " (line " + line + ")" : "")
        + ": "
        + (field().isEmpty() ? "" : field() + ": ")
        + reason();
  }

  /** The same error for a field one level deeper, in the same document and line. */
  @Override
  public ReportReadException under(String prefix) {
    return new ReportReadException(
        document, line, field().isEmpty() ? prefix : prefix + "." + field(), reason());
  }
}
