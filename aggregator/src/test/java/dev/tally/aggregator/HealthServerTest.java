package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.metrics.Freshness;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The probes' server, spoken to with raw sockets: clients that connect and send nothing, or part of
 * a request, never hold the probes down, and are disconnected after the request timeout; a
 * connection that fails, however it fails, is closed alone and the server goes on.
 */
class HealthServerTest {
  /** How long a test waits for an answer at most: a bound against hanging, not a measurement. */
  private static final int READ_BOUND_MILLIS = 30_000;

  private final PrometheusMetrics metrics = new PrometheusMetrics();
  private final AtomicReference<@Nullable String> liveness = new AtomicReference<>();
  private final List<Socket> idle = new ArrayList<>();
  private @Nullable HealthServer server;

  @AfterEach
  void tearDown() throws IOException {
    for (Socket s : idle) {
      s.close();
    }
    if (server != null) {
      server.close();
    }
    metrics.close();
  }

  private HealthServer start(Duration requestTimeout) throws IOException {
    Supplier<@Nullable String> ready = () -> null;
    server = HealthServer.of(0, liveness::get, ready, metrics, requestTimeout);
    return server;
  }

  private Socket connect(HealthServer s) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", s.port()), READ_BOUND_MILLIS);
    socket.setSoTimeout(READ_BOUND_MILLIS);
    return socket;
  }

  private String request(HealthServer s, String request) throws IOException {
    try (Socket socket = connect(s)) {
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private String get(HealthServer s, String path) throws IOException {
    return request(s, "GET " + path + " HTTP/1.1\r\nHost: probe\r\n\r\n");
  }

  /** Connections that send nothing, or the first byte of a request, and then wait. */
  private void silentClients(HealthServer s, int count) throws IOException {
    for (int i = 0; i < count; i++) {
      Socket socket = connect(s);
      idle.add(socket);
      if (i % 2 == 1) {
        socket.getOutputStream().write('G');
        socket.getOutputStream().flush();
      }
    }
  }

  /**
   * A server of at most {@code maxConnections} that answers {@code /healthz} at once and holds its
   * loop in the answer to {@code /hold}: it counts {@code held} down, then waits for {@code
   * release} (bounded).
   */
  private static HealthServer serverWithAHold(
      CountDownLatch held, CountDownLatch release, int maxConnections) throws IOException {
    Supplier<HealthServer.Answer> ok = () -> new HealthServer.Answer(200, "text/plain", "ok\n");
    Supplier<HealthServer.Answer> hold =
        () -> {
          held.countDown();
          try {
            release.await(READ_BOUND_MILLIS, TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return ok.get();
        };
    return new HealthServer(
        0, Map.of("/healthz", ok, "/hold", hold), Duration.ofMinutes(5), maxConnections);
  }

  @Test
  void twoClientsThatSendNothingDoNotHoldDownLiveness() throws IOException {
    HealthServer s = start(Duration.ofMinutes(5));
    silentClients(s, 2);

    assertThat(get(s, "/healthz")).startsWith("HTTP/1.1 200 OK").endsWith("\r\n\r\nok\n");
    assertThat(get(s, "/readyz")).startsWith("HTTP/1.1 200 OK").endsWith("ready\n");
  }

  @Test
  void aFloodOfIdleConnectionsDoesNotHoldDownLivenessEither() throws IOException {
    Supplier<HealthServer.Answer> ok = () -> new HealthServer.Answer(200, "text/plain", "ok\n");
    server = new HealthServer(0, Map.of("/healthz", ok), Duration.ofMinutes(5), 8);
    silentClients(server, 40);

    // past the cap the oldest connections are closed: the probe gets in
    assertThat(get(server, "/healthz")).startsWith("HTTP/1.1 200 OK");
  }

  /**
   * A key cancelled before its turn (its connection evicted or closed earlier in the same batch):
   * asking it whether it is readable throws {@code CancelledKeyException}, a RuntimeException that
   * used to escape the handler and end the server's loop.
   */
  @Test
  void aKeyCancelledBeforeItsTurnClosesItsChannelOnly() throws IOException {
    HealthServer s = start(Duration.ofMinutes(5));
    try (Selector selector = Selector.open();
        SocketChannel channel = SocketChannel.open()) {
      channel.configureBlocking(false);
      SelectionKey key = channel.register(selector, SelectionKey.OP_CONNECT);
      key.cancel();
      // no connection is open: the handler, on this thread, changes nothing of the loop's
      s.ready(key);
      assertThat(channel.isOpen()).as("the key's channel is closed").isFalse();
    }
    assertThat(get(s, "/healthz")).startsWith("HTTP/1.1 200 OK");
  }

  /**
   * Connections reset while newcomers wait past the cap. Two connections are open when the loop is
   * held in an answer; meanwhile new connections wait to be accepted, then the two are reset by
   * their client. The next batch of ready keys holds the listening socket first, then the two
   * (epoll hands them over in the order they became ready). When the loop took keys in that order,
   * accepting the new connections closed the two, whose keys came next in the same batch,
   * cancelled: asking such a key whether it is readable threw {@code CancelledKeyException}, which
   * used to end the loop and close the port. The loop now reads a batch's connections before it
   * accepts, so the two are closed as reset first and the newcomers admitted; the server goes on.
   */
  @Test
  void connectionsResetWhileNewcomersWaitAreClosedAndTheServerGoesOn() throws Exception {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    server = serverWithAHold(held, release, 3);
    List<Socket> older = List.of(connect(server), connect(server));
    for (Socket s : older) {
      s.setSoLinger(true, 0); // close() resets the connection
    }
    try (Socket holder = connect(server)) {
      holder
          .getOutputStream()
          .write("GET /hold HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      assertThat(held.await(READ_BOUND_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
      // the loop is held: these wait in the backlog, then the older connections are reset
      for (int i = 0; i < 3; i++) {
        idle.add(connect(server));
      }
      for (Socket s : older) {
        s.close();
      }
      release.countDown();
      assertThat(new String(holder.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
          .startsWith("HTTP/1.1 200 OK");
    }

    assertThat(get(server, "/healthz")).startsWith("HTTP/1.1 200 OK");
  }

  /**
   * Clients that open connections, send half a request head and reset them (SO_LINGER 0), each
   * keeping a few open, many more than the server admits at once: the server goes on answering.
   */
  @Test
  void aFloodOfHalfSentConnectionsResetByTheirClientsDoesNotStopTheServer() throws Exception {
    Supplier<HealthServer.Answer> ok = () -> new HealthServer.Answer(200, "text/plain", "ok\n");
    server = new HealthServer(0, Map.of("/healthz", ok), Duration.ofMinutes(5), 3);
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
    byte[] half = "GET /heal".getBytes(StandardCharsets.ISO_8859_1);
    int clients = 4;
    int connectionsEach = 250;
    int keptOpen = 3;
    Callable<Boolean> flood =
        () -> {
          Deque<Socket> open = new ArrayDeque<>();
          try {
            for (int i = 0; i < connectionsEach; i++) {
              Socket socket = new Socket();
              socket.setSoLinger(true, 0); // close() resets the connection
              open.add(socket);
              try {
                socket.connect(address, READ_BOUND_MILLIS);
                socket.getOutputStream().write(half);
              } catch (IOException e) {
                // the server evicted it first: a flood's connection may fail, the server may not
              }
              if (open.size() > keptOpen) {
                open.remove().close();
              }
            }
          } finally {
            for (Socket socket : open) {
              socket.close();
            }
          }
          return true;
        };
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<Boolean>> floods =
          pool.invokeAll(
              Collections.nCopies(clients, flood), READ_BOUND_MILLIS, TimeUnit.MILLISECONDS);
      for (Future<Boolean> f : floods) {
        assertThat(f.isCancelled()).as("a flooding client finished in time").isFalse();
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(get(server, "/healthz")).startsWith("HTTP/1.1 200 OK");
  }

  /**
   * Past the cap, a connection that has sent nothing yet (a probe whose request is on its way) is
   * kept while others that sent part of a request and stopped are closed for newcomers. Each
   * half-sent connection is followed by a whole request on a connection of its own, answered in the
   * round that accepts it: the half request, sent before that request's connection, was read in
   * that round or before, and the next whole request is accepted in a later round (it is sent once
   * the answer is in), when the half-sent connection has stopped for a whole round. Before, the
   * oldest connection was closed whatever it had sent: the silent one first.
   */
  @Test
  void aConnectionThatHasSentNothingYetOutlivesThoseThatStoppedHalfway() throws IOException {
    Supplier<HealthServer.Answer> ok = () -> new HealthServer.Answer(200, "text/plain", "ok\n");
    server = new HealthServer(0, Map.of("/healthz", ok), Duration.ofMinutes(5), 4);
    try (Socket silent = connect(server)) {
      for (int i = 0; i < 6; i++) {
        Socket half = connect(server);
        idle.add(half);
        half.getOutputStream().write("GET /heal".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(get(server, "/healthz")).startsWith("HTTP/1.1 200 OK");
      }
      silent
          .getOutputStream()
          .write("GET /healthz HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      assertThat(new String(silent.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
          .as("the connection that had sent nothing is still open and answered")
          .startsWith("HTTP/1.1 200 OK");
    }
  }

  /**
   * A request that arrives while the loop is busy, on a connection accepted before, is answered
   * though newcomers fill the cap in the same batch: the loop reads a batch's connections before it
   * accepts, and reads the oldest connection once more before closing it for a newcomer. Three
   * connections are open (the one whose request will come first), the loop is held in an answer,
   * newcomers connect, then the request is sent: the next batch holds the listening socket first.
   * Before, the accept came first and closed the oldest connection, request unread.
   */
  @Test
  void aRequestThatArrivedWhileTheLoopWasBusyIsAnsweredThoughNewcomersFillTheCap()
      throws Exception {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    server = serverWithAHold(held, release, 4);
    try (Socket probe = connect(server)) {
      idle.add(connect(server));
      idle.add(connect(server));
      try (Socket holder = connect(server)) {
        holder
            .getOutputStream()
            .write("GET /hold HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(held.await(READ_BOUND_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
        for (int i = 0; i < 4; i++) {
          idle.add(connect(server));
        }
        probe
            .getOutputStream()
            .write("GET /healthz HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        release.countDown();
        assertThat(new String(holder.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
            .startsWith("HTTP/1.1 200 OK");
      }
      assertThat(new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
          .as("the request sent while the loop was busy is answered")
          .startsWith("HTTP/1.1 200 OK");
    }
  }

  /**
   * Probes keep being answered while clients keep opening connections, half-sending and resetting
   * them (the hostile tenant's {@code health-flood}, which found it: /healthz went unanswered for 5
   * s). Before, one accept took the whole backlog and evicted the oldest connections to admit them,
   * among them a probe's whose request had not been read yet: the probe got a closed connection and
   * no answer.
   */
  @Test
  void probesAreAnsweredWhileAFloodKeepsConnecting() throws Exception {
    Supplier<HealthServer.Answer> ok = () -> new HealthServer.Answer(200, "text/plain", "ok\n");
    server = new HealthServer(0, Map.of("/healthz", ok), Duration.ofMinutes(5), 8);
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
    byte[] half = "GET /heal".getBytes(StandardCharsets.ISO_8859_1);
    java.util.concurrent.atomic.AtomicBoolean done =
        new java.util.concurrent.atomic.AtomicBoolean();
    Callable<Integer> flood =
        () -> {
          Deque<Socket> open = new ArrayDeque<>();
          int made = 0;
          try {
            while (!done.get()) {
              Socket socket = new Socket();
              socket.setSoLinger(true, 0);
              open.add(socket);
              try {
                socket.connect(address, READ_BOUND_MILLIS);
                socket.getOutputStream().write(half);
                made++;
              } catch (IOException e) {
                // evicted before it wrote: a flood's connection may fail
              }
              if (open.size() > 40) {
                open.remove().close();
              }
            }
          } finally {
            for (Socket socket : open) {
              socket.close();
            }
          }
          return made;
        };
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<String> answers = new ArrayList<>();
    try {
      List<Future<Integer>> floods = List.of(pool.submit(flood), pool.submit(flood));
      for (int i = 0; i < 40; i++) {
        answers.add(get(server, "/healthz"));
      }
      done.set(true);
      for (Future<Integer> f : floods) {
        assertThat(f.get(READ_BOUND_MILLIS, TimeUnit.MILLISECONDS))
            .as("the flood kept connecting")
            .isPositive();
      }
    } finally {
      done.set(true);
      pool.shutdownNow();
    }
    assertThat(answers).as("every probe answered").allMatch(a -> a.startsWith("HTTP/1.1 200 OK"));
  }

  @Test
  void aClientThatDoesNotFinishItsRequestIsDisconnectedAtTheTimeout() throws IOException {
    HealthServer s = start(Duration.ofMillis(200));
    try (Socket slow = connect(s)) {
      slow.getOutputStream().write("GET /hea".getBytes(StandardCharsets.ISO_8859_1));
      InputStream in = slow.getInputStream();
      assertThat(in.read()).as("the server closes the connection, answering nothing").isEqualTo(-1);
    }
    assertThat(get(s, "/healthz")).startsWith("HTTP/1.1 200 OK");
  }

  @Test
  void healthzFailsWithTheReasonWhileTheControllerIsStalled() throws IOException {
    HealthServer s = start(Duration.ofSeconds(5));
    liveness.set("a task of the aggregator thread has made no progress for PT4M");

    assertThat(get(s, "/healthz"))
        .startsWith("HTTP/1.1 503 Service Unavailable")
        .endsWith("not alive: a task of the aggregator thread has made no progress for PT4M\n");
  }

  @Test
  void answersHeadNotFoundOtherMethodsAndOversizedHeads() throws IOException {
    HealthServer s = start(Duration.ofSeconds(5));
    assertThat(request(s, "HEAD /healthz HTTP/1.1\r\n\r\n"))
        .startsWith("HTTP/1.1 200 OK")
        .contains("Content-Length: 3\r\n")
        .endsWith("\r\n\r\n");
    assertThat(get(s, "/nothing")).startsWith("HTTP/1.1 404 Not Found");
    assertThat(request(s, "POST /healthz HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 405");
    assertThat(request(s, "GET /healthz\r\n\r\n")).startsWith("HTTP/1.1 400");
    String huge = "GET /healthz HTTP/1.1\r\nX: " + "a".repeat(HealthServer.MAX_HEAD) + "\r\n\r\n";
    assertThat(request(s, huge)).startsWith("HTTP/1.1 431");
    assertThat(get(s, "/metrics?x=1"))
        .startsWith("HTTP/1.1 200 OK")
        .contains("Content-Type: " + PrometheusMetrics.CONTENT_TYPE);
  }

  @Test
  void aLeaderIsNotReadyWhileStale() {
    Duration bound = Duration.ofMinutes(5);
    Duration period = Duration.ofMinutes(10);
    assertThat(Main.staleness(Freshness.NOT_LEADING, bound, period)).isNull();
    assertThat(
            Main.staleness(
                new Freshness(Duration.ofMinutes(6), Duration.ZERO, Duration.ZERO), bound, period))
        .startsWith("stale: an input has waited PT6M");
    assertThat(
            Main.staleness(
                new Freshness(Duration.ZERO, Duration.ofHours(5), Duration.ofMinutes(14)),
                bound,
                period))
        .as("a quiet cluster: nothing flushed for hours, resyncs on time")
        .isNull();
    assertThat(
            Main.staleness(
                new Freshness(Duration.ZERO, Duration.ZERO, Duration.ofMinutes(16)), bound, period))
        .startsWith("stale: no resync succeeded for PT16M");
    assertThat(
            Main.staleness(
                new Freshness(Duration.ofDays(1), Duration.ZERO, Duration.ofDays(1)),
                Duration.ZERO,
                period))
        .as("--max-staleness=0 bounds nothing")
        .isNull();
  }
}
