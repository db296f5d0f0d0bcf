package dev.tally.testenv;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The control plane's audit log (one JSON event per line, every request) read from a mark: the
 * completed requests ({@code ResponseComplete}), without watches, whose streams complete only when
 * they end.
 */
public final class AuditLog {
  private final Path file;

  public AuditLog(Path file) {
    this.file = file;
  }

  public static AuditLog of(KubeTestEnv env) {
    return new AuditLog(env.auditLog());
  }

  /** A mark: the log's current length; {@link #since} reads what was written after it. */
  public long mark() {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One completed request. */
  public record Event(
      String user,
      String verb,
      String resource,
      String subresource,
      String namespace,
      String name,
      int code,
      String uri) {
    /** {@code verb resource[/subresource]}, e.g. {@code update policyreports}. */
    public String verbAndResource() {
      return verb + " " + resource + (subresource.isEmpty() ? "" : "/" + subresource);
    }
  }

  /** The completed requests written after {@code mark} (complete lines only). */
  public List<Event> since(long mark) {
    List<Event> events = new ArrayList<>();
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long end = in.length();
      if (mark >= end) {
        return events;
      }
      in.seek(mark);
      byte[] bytes = new byte[(int) Math.min(Integer.MAX_VALUE - 8, end - mark)];
      in.readFully(bytes);
      String text = new String(bytes, StandardCharsets.UTF_8);
      int last = text.lastIndexOf('\n');
      for (String line : text.substring(0, last + 1).split("\n")) {
        Event e = parse(line);
        if (e != null) {
          events.add(e);
        }
      }
      return events;
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file, e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Event parse(String line) {
    if (line.isBlank() || !line.contains("\"ResponseComplete\"")) {
      return null;
    }
    Map<String, Object> event = Serialization.unmarshal(line, Map.class);
    if (!"ResponseComplete".equals(event.get("stage")) || "watch".equals(event.get("verb"))) {
      return null;
    }
    Map<String, Object> user = (Map<String, Object>) event.get("user");
    Map<String, Object> ref = (Map<String, Object>) event.get("objectRef");
    Map<String, Object> status = (Map<String, Object>) event.get("responseStatus");
    return new Event(
        user == null ? "" : String.valueOf(user.get("username")),
        String.valueOf(event.get("verb")),
        field(ref, "resource"),
        field(ref, "subresource"),
        field(ref, "namespace"),
        field(ref, "name"),
        status == null || status.get("code") == null ? 0 : ((Number) status.get("code")).intValue(),
        String.valueOf(event.get("requestURI")));
  }

  private static String field(Map<String, Object> ref, String key) {
    return ref == null || ref.get(key) == null ? "" : String.valueOf(ref.get(key));
  }
}
