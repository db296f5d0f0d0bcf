package dev.tally.aggregator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * {@code /healthz}, {@code /readyz} and {@code /metrics} on the JDK's HTTP server.
 *
 * <ul>
 *   <li>{@code /healthz}: 200 while the process runs and its HTTP server answers. It does not ask
 *       the API server, so an API server that is down never gets the aggregator restarted (it
 *       retries on its own).
 *   <li>{@code /readyz}: 200 when {@code readiness} says so (see {@link Main}), else 503 with the
 *       reason in the body.
 *   <li>{@code /metrics}: every meter of {@link PrometheusMetrics} (Micrometer's Prometheus
 *       registry), in the Prometheus text exposition format 0.0.4.
 * </ul>
 */
final class HealthServer implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService threads;

  /**
   * @param readiness null when ready, else why not
   */
  HealthServer(int port, Supplier<@Nullable String> readiness, PrometheusMetrics metrics)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(port), 16);
    threads =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "tally-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(threads);
    server.createContext("/healthz", x -> answer(x, 200, "text/plain; charset=utf-8", "ok\n"));
    server.createContext(
        "/readyz",
        x -> {
          String why = readiness.get();
          if (why == null) {
            answer(x, 200, "text/plain; charset=utf-8", "ready\n");
          } else {
            answer(x, 503, "text/plain; charset=utf-8", "not ready: " + why + "\n");
          }
        });
    server.createContext(
        "/metrics", x -> answer(x, 200, PrometheusMetrics.CONTENT_TYPE, metrics.scrape()));
    server.createContext("/", x -> answer(x, 404, "text/plain; charset=utf-8", "not found\n"));
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private static void answer(HttpExchange x, int status, String type, String body)
      throws IOException {
    try (x) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().set("Content-Type", type);
      boolean head = x.getRequestMethod().equals("HEAD");
      x.sendResponseHeaders(status, head ? -1 : bytes.length);
      if (!head) {
        try (OutputStream out = x.getResponseBody()) {
          out.write(bytes);
        }
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
