package dev.tally.report.gatekeeper;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.fabric8.ApiServerJson;
import dev.tally.report.merge.gatekeeper.AuditRun;
import dev.tally.report.merge.gatekeeper.ExportLine;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One channel's directory of Gatekeeper's {@code disk} export driver ({@code <path>/<channel>/} of
 * the audit's Connection), read: which files hold finished runs, and the run a file holds.
 *
 * <p>The driver appends a run's lines to {@code <run id>.txt} ({@code :} written {@code _}) under
 * an exclusive lock and renames it {@code .log} once its finish line is written; it deletes the
 * oldest files itself, without a lock, beyond its {@code maxAuditResults}. So a reader lists only
 * {@code .log} files, never deletes, and takes a file gone while it is read as a run to skip; and
 * whatever the name says, {@link AuditRun#of} decides from the lines whether the run finished.
 *
 * <p>A line is one JSON object; fields this reader does not use ({@code details}, {@code
 * constraintAnnotations}, {@code resourceLabels}, any a later Gatekeeper adds) are skipped, at any
 * depth the API server stores ({@link ApiServerJson}). A complete line that is not such an object,
 * is longer than {@value #MAX_LINE_BYTES} bytes or has a field of the wrong type makes a finished
 * run {@link AuditRun.Invalid}, naming the line and field: none of it is applied.
 */
public final class GatekeeperExport {
  /** The suffix of a finished run's file. */
  public static final String FINISHED_SUFFIX = ".log";

  /**
   * The longest line read. Gatekeeper cuts a violation's message to 256 bytes; what can make a line
   * long is the template's {@code details} and the resource's labels.
   */
  public static final int MAX_LINE_BYTES = 4 * 1024 * 1024;

  private static final KubernetesSerialization JSON = ApiServerJson.serialization();

  private final Path channel;

  /**
   * @param channel the channel's directory: the Connection's {@code path}, then the audit's channel
   *     ({@code --audit-channel}, {@code audit-channel} by default)
   */
  public GatekeeperExport(Path channel) {
    this.channel = InvalidReportException.requireNonNull("channel", channel);
  }

  /** The channel's directory. */
  public Path channel() {
    return channel;
  }

  /**
   * The files of finished runs, oldest first (a run's id is the time it started, so their names
   * sort as their runs); none while the directory does not exist yet.
   *
   * @throws IOException if the directory cannot be listed
   */
  public List<Path> finishedFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> listed = Files.newDirectoryStream(channel, "*" + FINISHED_SUFFIX)) {
      for (Path p : listed) {
        if (Files.isRegularFile(p)) {
          files.add(p);
        }
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    files.sort(null);
    return files;
  }

  /**
   * The run {@code file} holds; {@link AuditRun.Unfinished} if the file is gone before it is read
   * whole (the driver deleted it).
   *
   * @throws IOException if the file cannot be read for another reason
   */
  public static AuditRun read(Path file) throws IOException {
    List<ExportLine> lines = new ArrayList<>();
    Invalid firstInvalid = null;
    boolean endsWithNewline = true;
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 64 * 1024)) {
      ByteArrayOutputStream line = new ByteArrayOutputStream(512);
      boolean tooLong = false;
      int number = 0;
      int b;
      while ((b = in.read()) >= 0) {
        if (b != '\n') {
          if (line.size() < MAX_LINE_BYTES) {
            line.write(b);
          } else {
            tooLong = true;
          }
          continue;
        }
        number++;
        if (tooLong) {
          if (firstInvalid == null) {
            firstInvalid = new Invalid(number, "", "is longer than " + MAX_LINE_BYTES + " bytes");
          }
        } else {
          try {
            lines.add(decode(line.toString(StandardCharsets.UTF_8)));
          } catch (InvalidReportException e) {
            if (firstInvalid == null) {
              firstInvalid = new Invalid(number, e.field(), e.reason());
            }
          }
        }
        line.reset();
        tooLong = false;
      }
      endsWithNewline = line.size() == 0 && !tooLong;
    } catch (NoSuchFileException e) {
      return new AuditRun.Unfinished("", "its file was deleted before it was read whole");
    }
    AuditRun run = AuditRun.of(lines, endsWithNewline);
    if (firstInvalid != null && run instanceof AuditRun.Finished) {
      // a line left out could be anywhere in the run: none of it applies
      return new AuditRun.Invalid(
          run.id(), firstInvalid.line, firstInvalid.field, firstInvalid.reason);
    }
    return run;
  }

  private record Invalid(int line, String field, String reason) {}

  /**
   * One line, decoded.
   *
   * @throws InvalidReportException naming the field, if the line is not a JSON object or a field
   *     has the wrong type
   */
  static ExportLine decode(String line) {
    Object parsed;
    try {
      parsed = JSON.unmarshal(line, Object.class);
    } catch (RuntimeException e) {
      throw new InvalidReportException("", "is not JSON: " + firstLine(e.getMessage()));
    }
    if (!(parsed instanceof Map<?, ?> object)) {
      throw new InvalidReportException("", "is not a JSON object");
    }
    return new ExportLine(
        string(object, "id"),
        string(object, "eventType"),
        string(object, "message"),
        string(object, "group"),
        string(object, "version"),
        string(object, "kind"),
        string(object, "name"),
        string(object, "enforcementAction"),
        strings(object, "enforcementActions"),
        string(object, "resourceGroup"),
        string(object, "resourceAPIVersion"),
        string(object, "resourceKind"),
        string(object, "resourceNamespace"),
        string(object, "resourceName"));
  }

  private static String string(Map<?, ?> object, String field) {
    Object value = object.get(field);
    if (value == null) {
      return "";
    }
    if (!(value instanceof String s)) {
      throw new InvalidReportException(field, "must be a string");
    }
    return s;
  }

  private static List<String> strings(Map<?, ?> object, String field) {
    Object value = object.get(field);
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof List<?> list)) {
      throw new InvalidReportException(field, "must be a list of strings");
    }
    List<String> out = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      if (!(list.get(i) instanceof String s)) {
        throw new InvalidReportException(field + "[" + i + "]", "must be a string");
      }
      out.add(s);
    }
    return out;
  }

  private static String firstLine(@org.jspecify.annotations.Nullable String message) {
    if (message == null) {
      return "";
    }
    int nl = message.indexOf('\n');
    return InvalidReportException.printable(nl < 0 ? message : message.substring(0, nl), 200);
  }
}
