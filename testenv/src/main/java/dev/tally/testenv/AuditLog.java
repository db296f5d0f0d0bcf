package dev.tally.testenv;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * The control plane's audit log (one JSON event per line, every request) read from a mark: the
 * completed requests ({@code ResponseComplete}); a watch, whose stream completes only when it ends,
 * is left out, or counted once as it starts ({@link #sinceWithWatches}). Every test that counts
 * requests from the audit log reads it here.
 *
 * <p>A count is never read as soon as the cluster's state looks right: the API server writes a
 * request's event after it has answered it, so a test that saw a report gone can read the log
 * before the delete that removed it is there (a count of 1 where 2 were made). A count that expects
 * requests waits, bounded, until the log holds them ({@link #sinceOnceLogged}); one that expects
 * none (no write when nothing changed) has nothing to wait for, and is read once the log holds a
 * marker request made after the window it checks ({@link #awaitMarker}).
 */
public final class AuditLog {
  /** How long the waits for what the log should hold are bounded to. */
  private static final Duration LOGGED_WITHIN = Duration.ofSeconds(30);

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

  /**
   * Makes a marker request and waits, bounded, until this log holds it: a GET by {@code client} of
   * a ConfigMap of {@code namespace} that no one creates, named uniquely (answered 404). The log is
   * written in blocking mode, each event by its request's handler as the request completes, so once
   * the marker, sent after the requests a count checks had completed, is in the log, so are they. A
   * count of other accounts' requests, or of other resources, does not see the marker.
   *
   * @throws AssertionError when the marker is not logged within the bound
   */
  public void awaitMarker(KubernetesClient client, String namespace) {
    long before = mark();
    String marker = "audit-marker-" + UUID.randomUUID();
    client.configMaps().inNamespace(namespace).withName(marker).get();
    Await.until(
        "the audit log holds the marker request " + namespace + "/" + marker,
        () ->
            since(before).stream()
                .anyMatch(
                    e ->
                        e.resource().equals("configmaps")
                            && e.namespace().equals(namespace)
                            && e.name().equals(marker)),
        LOGGED_WITHIN);
  }

  /**
   * The completed requests after {@code mark}, once the log holds a marker request made now ({@link
   * #awaitMarker}) and {@code expected} holds of them (each wait bounded): the requests a count
   * expects, and any made before the marker beside them. Past the bound, what the log holds is
   * returned for the caller's assertion to show what is missing.
   */
  public List<Event> sinceOnceLogged(
      long mark, KubernetesClient client, String namespace, Predicate<List<Event>> expected) {
    awaitMarker(client, namespace);
    AtomicReference<List<Event>> last = new AtomicReference<>(List.of());
    try {
      Await.until(
          "the audit log holds the requests expected",
          () -> {
            List<Event> events = since(mark);
            last.set(events);
            return expected.test(events);
          },
          LOGGED_WITHIN);
    } catch (AssertionError e) {
      // the caller's assertion names what is missing, with what the log holds
    }
    return last.get();
  }

  /** One request. */
  public record Event(
      String user,
      String verb,
      String apiGroup,
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
    return between(mark, Long.MAX_VALUE);
  }

  /** The completed requests written between two marks (complete lines only). */
  public List<Event> between(long mark, long until) {
    return read(mark, until, false);
  }

  /**
   * The completed requests written after {@code mark}, and beside them each watch as it starts
   * (stage {@code ResponseStarted}, with its code): every request a role has to allow.
   */
  public List<Event> sinceWithWatches(long mark) {
    return read(mark, Long.MAX_VALUE, true);
  }

  private List<Event> read(long mark, long until, boolean watches) {
    List<Event> events = new ArrayList<>();
    try (InputStream in = Files.newInputStream(file)) {
      long size = Files.size(file);
      if (mark > size) {
        // marks are offsets into one file: a shorter file is a new one, and counting from the
        // mark would silently miss what went into the old (KubeTestEnv turns rotation off)
        throw new IllegalStateException(
            file + " is " + size + " bytes, shorter than the mark " + mark + ": it was rotated");
      }
      long end = Math.min(until, size);
      if (mark >= end) {
        return events;
      }
      in.skipNBytes(mark);
      BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(new BoundedInputStream(in, end - mark), StandardCharsets.UTF_8),
              1 << 16);
      for (String line; (line = lines.readLine()) != null; ) {
        Event e = parse(line, watches);
        if (e != null) {
          events.add(e);
        }
      }
      return events;
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file, e);
    }
  }

  /** At most {@code limit} bytes of a stream. */
  private static final class BoundedInputStream extends FilterInputStream {
    private long left;

    BoundedInputStream(InputStream in, long limit) {
      super(in);
      this.left = limit;
    }

    @Override
    public int read() throws IOException {
      if (left <= 0) {
        return -1;
      }
      int b = super.read();
      if (b >= 0) {
        left--;
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int off, int len) throws IOException {
      if (left <= 0) {
        return -1;
      }
      int n = super.read(buffer, off, (int) Math.min(len, left));
      if (n > 0) {
        left -= n;
      }
      return n;
    }
  }

  @SuppressWarnings("unchecked")
  private static Event parse(String line, boolean watches) {
    if (line.isBlank()
        || !line.endsWith("}") // the line being written
        || !(line.contains("\"ResponseComplete\"")
            || (watches && line.contains("\"ResponseStarted\"")))) {
      return null;
    }
    Map<String, Object> event = Serialization.unmarshal(line, Map.class);
    Object stage = event.get("stage");
    boolean watch = "watch".equals(event.get("verb"));
    boolean counted =
        watch ? watches && "ResponseStarted".equals(stage) : "ResponseComplete".equals(stage);
    if (!counted) {
      return null;
    }
    Map<String, Object> user = (Map<String, Object>) event.get("user");
    Map<String, Object> ref = (Map<String, Object>) event.get("objectRef");
    Map<String, Object> status = (Map<String, Object>) event.get("responseStatus");
    return new Event(
        user == null ? "" : String.valueOf(user.get("username")),
        String.valueOf(event.get("verb")),
        field(ref, "apiGroup"),
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
