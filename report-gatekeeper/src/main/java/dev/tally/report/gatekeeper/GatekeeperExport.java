package dev.tally.report.gatekeeper;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.merge.gatekeeper.AuditRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One channel's directory of Gatekeeper's {@code disk} export driver ({@code <path>/<channel>/} of
 * the audit's Connection), read: which files hold finished runs, and the run a file holds.
 *
 * <p>The driver appends a run's lines to {@code <run id>.txt} ({@code :} written {@code _}) under
 * an exclusive lock and renames it {@code .log} once its finish line is written; it deletes the
 * oldest files itself, without a lock, beyond its {@code maxAuditResults}. So a reader lists only
 * {@code .log} files (not through symbolic links: the directory is writable by all), never deletes,
 * and takes a file gone before it is opened as a run to skip (once open, a file deleted is read
 * whole); and whatever the name says, the lines decide whether the run finished.
 *
 * <p>This class only splits a file into its lines (at most {@value #MAX_LINE_BYTES} bytes each);
 * reading each as JSON and deciding which run they make is the pure rule's ({@link AuditRun#read}):
 * a complete line that cannot be read makes a finished run {@link AuditRun.Invalid}, naming the
 * line and field, and none of it is applied.
 */
public final class GatekeeperExport {
  /** The suffix of a finished run's file. */
  public static final String FINISHED_SUFFIX = ".log";

  /**
   * The longest line read. Gatekeeper cuts a violation's message to 256 bytes; what can make a line
   * long is the template's {@code details} and the resource's labels.
   */
  public static final int MAX_LINE_BYTES = 4 * 1024 * 1024;

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
        if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
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
   * The run {@code file} holds: its complete lines, as {@link AuditRun#read} decides; {@link
   * AuditRun.Unfinished} if the file is gone before it is opened (the driver deleted it). A line
   * longer than {@value #MAX_LINE_BYTES} bytes is not kept: where it would make the run invalid,
   * the reason says it was too long. Symbolic links are not followed.
   *
   * @throws IOException if the file cannot be read for another reason
   */
  public static AuditRun read(Path file) throws IOException {
    List<String> lines = new ArrayList<>();
    Set<Integer> tooLong = new HashSet<>();
    ByteArrayOutputStream line = new ByteArrayOutputStream(512);
    boolean over = false;
    try (InputStream in =
        Channels.newInputStream(
            Files.newByteChannel(
                file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)))) {
      byte[] block = new byte[64 * 1024];
      int read;
      while ((read = in.read(block)) > 0) {
        int from = 0;
        for (int i = 0; i < read; i++) {
          if (block[i] != '\n') {
            continue;
          }
          over |= !append(line, block, from, i - from);
          if (over) {
            tooLong.add(lines.size());
            lines.add("");
          } else {
            lines.add(line.toString(StandardCharsets.UTF_8));
          }
          line.reset();
          over = false;
          from = i + 1;
        }
        over |= !append(line, block, from, read - from);
      }
    } catch (NoSuchFileException e) {
      return new AuditRun.Unfinished(runId(file), "its file was deleted before it could be opened");
    }
    AuditRun run = AuditRun.read(lines, line.size() == 0 && !over);
    if (run instanceof AuditRun.Invalid invalid && tooLong.contains(invalid.line() - 1)) {
      return new AuditRun.Invalid(
          invalid.id(), invalid.line(), "", "is longer than " + MAX_LINE_BYTES + " bytes");
    }
    return run;
  }

  /** Appends what the line can still hold; false if that was not all. */
  private static boolean append(ByteArrayOutputStream line, byte[] block, int from, int length) {
    int room = MAX_LINE_BYTES - line.size();
    line.write(block, from, Math.min(room, length));
    return length <= room;
  }

  /** The run id a file's name gives: the name without its suffix, '_' read as ':'. */
  static String runId(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return (dot < 0 ? name : name.substring(0, dot)).replace('_', ':');
  }
}
