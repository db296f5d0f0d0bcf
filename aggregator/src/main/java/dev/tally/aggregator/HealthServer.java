package dev.tally.aggregator;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /healthz}, {@code /readyz} and {@code /metrics} on one thread that never blocks on a
 * client: a small HTTP/1.1 server on a non-blocking selector.
 *
 * <ul>
 *   <li>{@code /healthz}: 200 while {@code liveness} says so (see {@link Main}), else 503 with the
 *       reason in the body. It never asks the API server, so an API server that is down never gets
 *       the aggregator restarted (it retries on its own).
 *   <li>{@code /readyz}: 200 when {@code readiness} says so (see {@link Main}), else 503 with the
 *       reason in the body.
 *   <li>{@code /metrics}: every meter of {@link PrometheusMetrics} (Micrometer's Prometheus
 *       registry), in the Prometheus text exposition format 0.0.4.
 * </ul>
 *
 * <p>A client cannot hold the probes down. The JDK's {@code HttpServer} reads a request on a thread
 * of its executor and waits for it without a bound: two clients that open a connection and send a
 * byte took both threads, and the kubelet's liveness probe went unanswered until the pod was
 * restarted. Here one thread reads every connection as its bytes arrive and answers a request as
 * soon as its head is complete (the answers are computed in memory: no probe makes a request); each
 * connection must send its request and take the whole answer within the request timeout, or is
 * closed; a request head over 8 KiB is refused (431); and past {@code maxConnections} a connection
 * is closed to admit the new one, so that a flood of idle connections delays a probe by at most one
 * accept: the oldest of those that sent part of a head and nothing more for a whole round (a probe
 * sends its head at once), else the oldest, read once more first (its request may have arrived
 * since the select: then it is answered, not closed). A connection is read as soon as it is
 * accepted, each round reads the connections with bytes waiting before it accepts, and one round
 * accepts at most half of {@code maxConnections}. A flood of connections that send nothing can
 * still close a probe whose client was not scheduled between connecting and writing for two rounds
 * of the loop; only the chart's NetworkPolicy keeps such a flood away. Every answer closes its
 * connection ({@code Connection: close}).
 *
 * <p>No connection's failure stops the loop. Whatever one ready key throws (an {@code IOException},
 * or a {@code RuntimeException} such as a {@code CancelledKeyException}) closes that connection
 * only; a connection that cannot be set up once accepted is closed and the others are accepted. A
 * failure of the loop itself (of {@code select}, or of {@code accept} on the listening socket) is
 * logged, with its stack trace at most once a minute and otherwise at DEBUG, and the loop goes on
 * (after a pause of 100 ms when {@code select} failed, so that a failure that repeats does not spin
 * a core). Only {@link #close()} ends the loop, or an {@code Error} (logged; the port is closed, so
 * the liveness probe fails and the pod is restarted). Before, a client that opened and reset
 * connections past {@code maxConnections} got a connection evicted while its key was still in the
 * batch being handled: the {@code CancelledKeyException} of that key escaped the loop, which closed
 * the port for good, and the kubelet restarted the pod over and over.
 */
final class HealthServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HealthServer.class);
  private static final String TEXT = "text/plain; charset=utf-8";
  static final int MAX_HEAD = 8192;

  /** How often a failure of the loop itself is logged with its stack trace at most. */
  private static final long REPORT_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

  /** How long the loop pauses after a failure of its own before it selects again. */
  private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** One answer: status, content type and body. */
  record Answer(int status, String type, String body) {}

  private final ServerSocketChannel server;
  private final Selector selector;
  private final Map<String, Supplier<Answer>> routes;
  private final long timeoutNanos;
  private final int maxConnections;

  /** The loop's rounds so far: a connection's progress is dated by them. */
  private long round;

  /** The open connections, oldest first. */
  private final LinkedHashMap<SocketChannel, Connection> connections = new LinkedHashMap<>();

  private final Thread loop;
  private volatile boolean closed;

  /** Whether a failure of the loop was logged with its stack trace, and when. */
  private boolean reported;

  private long reportedAt;

  /** Failures of the loop since {@link #reportedAt}, logged at DEBUG only. */
  private int unreported;

  /**
   * The program's server.
   *
   * @param liveness null when alive, else why not
   * @param readiness null when ready, else why not
   */
  static HealthServer of(
      int port,
      Supplier<@Nullable String> liveness,
      Supplier<@Nullable String> readiness,
      PrometheusMetrics metrics,
      Duration requestTimeout)
      throws IOException {
    Map<String, Supplier<Answer>> routes = new LinkedHashMap<>();
    routes.put("/healthz", () -> verdict(liveness.get(), "ok\n", "not alive: "));
    routes.put("/readyz", () -> verdict(readiness.get(), "ready\n", "not ready: "));
    routes.put("/metrics", () -> new Answer(200, PrometheusMetrics.CONTENT_TYPE, metrics.scrape()));
    return new HealthServer(port, routes, requestTimeout, 64);
  }

  private static Answer verdict(@Nullable String why, String ok, String prefix) {
    return why == null ? new Answer(200, TEXT, ok) : new Answer(503, TEXT, prefix + why + "\n");
  }

  /**
   * @param routes each path's answer (a path not among them is 404)
   * @param requestTimeout how long a connection may take to send its request and read the answer
   * @param maxConnections how many connections are open at most
   */
  HealthServer(
      int port, Map<String, Supplier<Answer>> routes, Duration requestTimeout, int maxConnections)
      throws IOException {
    if (maxConnections < 1) {
      throw new IllegalArgumentException(
          "maxConnections must be at least 1, was " + maxConnections);
    }
    this.routes = Map.copyOf(routes);
    this.timeoutNanos = requestTimeout.toNanos();
    this.maxConnections = maxConnections;
    this.selector = Selector.open();
    try {
      server = ServerSocketChannel.open();
      server.bind(new InetSocketAddress(port), 64);
      server.configureBlocking(false);
      server.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException e) {
      selector.close();
      throw e;
    }
    loop = new Thread(this::serve, "tally-http");
    loop.setDaemon(true);
    loop.start();
  }

  int port() {
    return server.socket().getLocalPort();
  }

  @Override
  public void close() {
    closed = true;
    selector.wakeup();
    try {
      loop.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A connection: its deadline, what it sent so far, and the answer being written. */
  private static final class Connection {
    final long deadline;
    final ByteBuffer in = ByteBuffer.allocate(MAX_HEAD);
    @Nullable ByteBuffer out;

    /** The round in which a read last brought bytes (or the connection was accepted). */
    long progressed;

    Connection(long deadline, long round) {
      this.deadline = deadline;
      this.progressed = round;
    }
  }

  private void serve() {
    try {
      while (!closed) {
        try {
          selector.select(waitMillis());
          round++;
          handleSelected();
          expire();
        } catch (IOException | RuntimeException e) {
          loopFailed(e);
          LockSupport.parkNanos(PAUSE_NANOS);
        }
      }
    } catch (Error e) {
      LOG.error("the health server stopped", e);
      throw e;
    } finally {
      for (SocketChannel c : new ArrayList<>(connections.keySet())) {
        drop(c);
      }
      try {
        server.close();
        selector.close();
      } catch (IOException e) {
        LOG.debug("closing the health server: {}", e.toString());
      }
    }
  }

  /**
   * A failure of the loop itself, not of one connection: logged with its stack trace once a minute
   * at most, with how many were not since; at DEBUG otherwise.
   */
  private void loopFailed(Exception e) {
    long now = System.nanoTime();
    if (!reported || now - reportedAt >= REPORT_INTERVAL_NANOS) {
      LOG.warn(
          "the health server's loop failed ({} more failures since the last report); it goes on",
          unreported,
          e);
      reported = true;
      reportedAt = now;
      unreported = 0;
    } else {
      unreported++;
      LOG.debug("the health server's loop failed again: {}", e.toString());
    }
  }

  /** Until the earliest deadline, at most a second. */
  private long waitMillis() {
    long now = System.nanoTime();
    long wait = 1_000;
    for (Connection c : connections.values()) {
      wait = Math.min(wait, Math.max(1, (c.deadline - now) / 1_000_000 + 1));
    }
    return wait;
  }

  /**
   * The batch of ready keys, the connections' first and the listening socket's last: every request
   * that has arrived by the time of the select is read before an accept of the same round can close
   * its connection for a newcomer. (So no key of a batch is cancelled by an accept before its turn;
   * {@link #ready} still handles a cancelled key, as it handles anything a key throws.)
   */
  private void handleSelected() {
    @Nullable SelectionKey accept = null;
    Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
    while (keys.hasNext()) {
      SelectionKey key = keys.next();
      keys.remove();
      if (key.channel() == server) {
        accept = key;
      } else {
        ready(key);
      }
    }
    if (accept != null) {
      ready(accept);
    }
  }

  /**
   * One ready key of a batch. Whatever goes wrong with it closes its connection and nothing else:
   * its key may have been cancelled, its client may have reset the connection, anything it throws
   * stays here.
   */
  void ready(SelectionKey key) {
    SelectableChannel channel = key.channel();
    try {
      if (!key.isValid()) {
        if (channel != server) {
          drop(channel);
        }
      } else if (key.isAcceptable()) {
        accept();
      } else if (key.isReadable()) {
        read((SocketChannel) channel);
      } else if (key.isWritable()) {
        write((SocketChannel) channel);
      }
    } catch (IOException | RuntimeException e) {
      if (channel == server) {
        // the listening socket's, not a connection's: it stays open, and the next accept may
        // succeed (once a file descriptor is free, say)
        loopFailed(e);
      } else {
        LOG.debug("a connection of the health server failed: {}", e.toString());
        drop(channel);
      }
    }
  }

  /**
   * Accepts at most half of {@code maxConnections} connections, so that a connection accepted is
   * read in the next round before later accepts could make it the oldest (the rest wait in the
   * backlog for the next round), and reads each at once: a probe's request has usually arrived with
   * its connection, and is answered before anything can close it. Before, one accept took the whole
   * backlog, and a flood of connections behind a probe's closed the probe's before its request was
   * read (the hostile tenant's {@code health-flood}).
   */
  private void accept() throws IOException {
    int budget = Math.max(1, maxConnections / 2);
    SocketChannel c;
    while (budget-- > 0 && (c = server.accept()) != null) {
      if (connections.size() >= maxConnections) {
        LOG.debug("{} connections open: closing one", connections.size());
        makeRoom();
      }
      try {
        c.configureBlocking(false);
        c.register(selector, SelectionKey.OP_READ);
        connections.put(c, new Connection(System.nanoTime() + timeoutNanos, round));
        read(c);
      } catch (IOException | RuntimeException e) {
        LOG.debug("admitting a connection: {}", e.toString());
        drop(c);
      }
    }
  }

  /**
   * Closes one connection for a newcomer: the oldest of those that sent part of a request head and
   * nothing more in a whole round since, else the oldest, once it has been read again. A probe
   * sends its head at once, so a head that stopped halfway for a round is not a probe's; a
   * connection that has sent nothing may be a probe whose request is on its way (its client was not
   * scheduled between connecting and writing), and its request may have arrived since the select:
   * read, it is answered instead. Before, the oldest was closed whatever it had sent, and a flood
   * of half-sent requests closed a probe's connection accepted a moment before its request arrived
   * (one probe in 40 while two threads flooded and the machine's two cores were busy).
   */
  private void makeRoom() {
    for (Map.Entry<SocketChannel, Connection> e : connections.entrySet()) {
      Connection conn = e.getValue();
      if (conn.out == null && conn.in.position() > 0 && conn.progressed < round) {
        drop(e.getKey());
        return;
      }
    }
    SocketChannel oldest = connections.keySet().iterator().next();
    try {
      read(oldest);
    } catch (IOException | RuntimeException e) {
      LOG.debug("a connection of the health server failed: {}", e.toString());
      drop(oldest);
    }
    if (connections.size() >= maxConnections) {
      drop(connections.keySet().iterator().next());
    }
  }

  private void read(SocketChannel c) throws IOException {
    Connection conn = connections.get(c);
    if (conn == null || conn.out != null) {
      return;
    }
    int n = c.read(conn.in);
    if (n < 0) {
      drop(c);
      return;
    }
    if (n > 0) {
      conn.progressed = round;
    }
    int end = headEnd(conn.in);
    if (end >= 0) {
      answer(c, conn, answer(new String(conn.in.array(), 0, end, StandardCharsets.ISO_8859_1)));
    } else if (!conn.in.hasRemaining()) {
      answer(c, conn, new Answer(431, TEXT, "request head over " + MAX_HEAD + " bytes\n"));
    }
  }

  /** The length of the request head (up to the blank line), or -1 while it is incomplete. */
  private static int headEnd(ByteBuffer in) {
    byte[] b = in.array();
    for (int i = 3; i < in.position(); i++) {
      if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
        return i - 3;
      }
    }
    return -1;
  }

  private Answer answer(String head) {
    String[] line = head.lines().findFirst().orElse("").split(" ");
    if (line.length != 3 || !line[2].startsWith("HTTP/1.")) {
      return new Answer(400, TEXT, "bad request line\n");
    }
    String method = line[0];
    if (!method.equals("GET") && !method.equals("HEAD")) {
      return new Answer(405, TEXT, "method not allowed\n");
    }
    String path = line[1];
    int query = path.indexOf('?');
    Supplier<Answer> route = routes.get(query < 0 ? path : path.substring(0, query));
    if (route == null) {
      return new Answer(404, TEXT, "not found\n");
    }
    try {
      return route.get();
    } catch (RuntimeException e) {
      LOG.warn("{} failed: {}", path, e.toString());
      return new Answer(500, TEXT, "internal error\n");
    }
  }

  private void answer(SocketChannel c, Connection conn, Answer a) throws IOException {
    boolean head = new String(conn.in.array(), 0, 4, StandardCharsets.ISO_8859_1).equals("HEAD");
    byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
    String status =
        "HTTP/1.1 "
            + a.status()
            + " "
            + reason(a.status())
            + "\r\nContent-Type: "
            + a.type()
            + "\r\nContent-Length: "
            + body.length
            + "\r\nConnection: close\r\n\r\n";
    byte[] top = status.getBytes(StandardCharsets.ISO_8859_1);
    ByteBuffer out = ByteBuffer.allocate(top.length + (head ? 0 : body.length));
    out.put(top);
    if (!head) {
      out.put(body);
    }
    out.flip();
    conn.out = out;
    c.register(selector, SelectionKey.OP_WRITE);
    write(c);
  }

  private void write(SocketChannel c) throws IOException {
    Connection conn = connections.get(c);
    if (conn == null || conn.out == null) {
      return;
    }
    c.write(conn.out);
    if (!conn.out.hasRemaining()) {
      drop(c);
    }
  }

  private void expire() {
    long now = System.nanoTime();
    List<SocketChannel> late = new ArrayList<>();
    for (var e : connections.entrySet()) {
      if (now - e.getValue().deadline >= 0) {
        late.add(e.getKey());
      }
    }
    for (SocketChannel c : late) {
      LOG.debug("a client of the health server timed out");
      drop(c);
    }
  }

  /** Closes a connection (its key is cancelled with it) and forgets it. */
  private void drop(SelectableChannel c) {
    connections.remove(c);
    try {
      c.close();
    } catch (IOException e) {
      LOG.debug("closing a connection: {}", e.toString());
    }
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 431 -> "Request Header Fields Too Large";
      case 500 -> "Internal Server Error";
      case 503 -> "Service Unavailable";
      default -> "Status";
    };
  }
}
