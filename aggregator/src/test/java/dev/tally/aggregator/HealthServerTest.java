package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.Freshness;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The probes' server, spoken to with raw sockets: clients that connect and send nothing, or part of
 * a request, never hold the probes down, and are disconnected after the request timeout.
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
