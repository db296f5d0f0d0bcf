package dev.tally.report.fabric8;

import dev.tally.report.fabric8.client.ApiServerJson;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Helpers around the mock API server: clients, pods, request counts.
 *
 * <p>Every client made here runs on a Vert.x instance of its own, and {@link #close} waits until
 * that instance has shut down. fabric8's {@code client.close()} only starts closing its connections
 * and its event loops; a connection still open when the mock server stops (or when the loops have
 * ended) is then closed on a terminated event loop, and netty logs an ERROR with a stack trace
 * ("Failed to submit a listener notification task. Event loop shut down?"). So tests close
 * controllers, informers and publishers first, then their clients with {@link #close}, and only
 * then does the mock server stop (the JUnit extension stops it after {@code @AfterEach}).
 */
public final class MockCluster {
  private static final Map<KubernetesClient, Vertx> VERTX = new ConcurrentHashMap<>();

  private MockCluster() {}

  /**
   * A client without fabric8's own retries, so that Tally's budget and backoff are what is tested,
   * and with a generous request timeout: a bound for a busy build machine, not a wait. Close it
   * with {@link #close}.
   */
  public static KubernetesClient client(KubernetesMockServer server) {
    return client(server, null);
  }

  /** The same, talking to {@code masterUrl} (a proxy in front of the server) when it is set. */
  public static KubernetesClient client(KubernetesMockServer server, String masterUrl) {
    return client(server, masterUrl, null);
  }

  /**
   * The same, reading with {@link ApiServerJson#serialization()}: every object the API server may
   * store, as the aggregator program's client does.
   */
  public static KubernetesClient readingClient(KubernetesMockServer server) {
    return client(server, null, ApiServerJson.serialization());
  }

  private static KubernetesClient client(
      KubernetesMockServer server, String masterUrl, KubernetesSerialization serialization) {
    Vertx vertx = newVertx();
    KubernetesClient client =
        server.createClient(
            b -> {
              b.withHttpClientFactory(httpClientFactory(vertx));
              if (serialization != null) {
                b.withKubernetesSerialization(serialization);
              }
              var config =
                  b.editOrNewConfig()
                      .withRequestRetryBackoffLimit(0)
                      .withRequestTimeout(REQUEST_TIMEOUT_MILLIS);
              if (masterUrl != null) {
                config.withMasterUrl(masterUrl);
              }
              config.endConfig();
            });
    VERTX.put(client, vertx);
    return client;
  }

  /**
   * A client of an address where nothing listens: every request fails with "connection refused".
   * Close it with {@link #close}.
   */
  public static KubernetesClient refusingClient() {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Vertx vertx = newVertx();
    KubernetesClient client =
        new KubernetesClientBuilder()
            .withHttpClientFactory(httpClientFactory(vertx))
            .withConfig(
                new ConfigBuilder()
                    .withMasterUrl("http://127.0.0.1:" + port)
                    .withRequestRetryBackoffLimit(0)
                    .withRequestTimeout(REQUEST_TIMEOUT_MILLIS)
                    .build())
            .build();
    VERTX.put(client, vertx);
    return client;
  }

  /**
   * fabric8's Vert.x HTTP client on {@code vertx}: fabric8 8.x's runs on Vert.x 5 ({@code
   * …client.vertx5}), 7.x's on Vert.x 4 ({@code …client.vertx}); the class is picked by name, so
   * that these tests run on both lines (compat/fabric8-7).
   */
  private static HttpClient.Factory httpClientFactory(Vertx vertx) {
    for (String name :
        new String[] {
          "io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory",
          "io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory"
        }) {
      try {
        return (HttpClient.Factory)
            Class.forName(name).getConstructor(Vertx.class).newInstance(vertx);
      } catch (ClassNotFoundException e) {
        // the other line
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot make a " + name, e);
      }
    }
    throw new IllegalStateException("no fabric8 Vert.x HTTP client on the class path");
  }

  /** One event loop is plenty for a test client. */
  private static Vertx newVertx() {
    return Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
  }

  /**
   * Closes a client made here and waits, boundedly, until its connections and event loops are gone.
   */
  public static void close(KubernetesClient client) {
    Vertx vertx = VERTX.remove(client);
    if (vertx != null) {
      // Vert.x first: its close hooks close the HTTP and WebSocket clients and wait for their
      // connections before the event loops end. fabric8's close() would start closing them and
      // return, and the loops could then end under connections still closing.
      try {
        vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("the client's Vert.x instance did not shut down", e);
      }
    }
    client.close();
  }

  /** {@link #close} as an {@link AutoCloseable}, for fixtures that close in reverse order. */
  public static AutoCloseable closing(KubernetesClient client) {
    return () -> close(client);
  }

  /** fabric8's default is 10 s; a loaded 2-core CI machine has been seen to need more. */
  public static final int REQUEST_TIMEOUT_MILLIS = 60_000;

  public static Pod pod(KubernetesClient client, String namespace, String name) {
    return client
        .pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("busybox")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  /** Takes every request recorded so far and counts them by method (GET, POST, PUT, ...). */
  public static Map<String, Integer> drainByMethod(KubernetesMockServer server) {
    Map<String, Integer> counts = new HashMap<>();
    try {
      RecordedRequest r;
      while ((r = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
        counts.merge(r.getMethod(), 1, Integer::sum);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return counts;
  }

  /** Writes among the counts: anything but GET. */
  public static int writes(Map<String, Integer> byMethod) {
    return byMethod.entrySet().stream()
        .filter(e -> !e.getKey().equals("GET"))
        .mapToInt(Map.Entry::getValue)
        .sum();
  }
}
