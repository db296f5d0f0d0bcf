package dev.tally.report.files;

import java.util.Objects;

/**
 * Something the codec read differently from how it was written, or left out: a field the model
 * cannot hold as it was published, read after a documented normalisation (see {@link ReportFiles}),
 * or a field that is not in the schema of the object's version. The reader also logs each warning
 * at WARN.
 *
 * @param field the path of the field inside its document, such as {@code
 *     results[0].timestamp.nanos} (or {@code items[3].results[0].timestamp.nanos} in a {@code
 *     List})
 * @param message what was read instead, and why
 */
public record CodecWarning(String field, String message) {
  public CodecWarning {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    return field + ": " + message;
  }
}
