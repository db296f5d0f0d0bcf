package dev.tally.report.fabric8;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Helpers around the mock API server: clients, pods, request counts. */
public final class MockCluster {
  private MockCluster() {}

  /**
   * A client without fabric8's own retries, so that Tally's budget and backoff are what is tested,
   * and with a generous request timeout: a bound for a busy build machine, not a wait.
   */
  public static KubernetesClient client(KubernetesMockServer server) {
    return server.createClient(
        b ->
            b.editOrNewConfig()
                .withRequestRetryBackoffLimit(0)
                .withRequestTimeout(REQUEST_TIMEOUT_MILLIS)
                .endConfig());
  }

  /** fabric8's default is 10 s; a loaded 2-core CI machine has been seen to need more. */
  public static final int REQUEST_TIMEOUT_MILLIS = 60_000;

  static Pod pod(KubernetesClient client, String namespace, String name) {
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
  static Map<String, Integer> drainByMethod(KubernetesMockServer server) {
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
  static int writes(Map<String, Integer> byMethod) {
    return byMethod.entrySet().stream()
        .filter(e -> !e.getKey().equals("GET"))
        .mapToInt(Map.Entry::getValue)
        .sum();
  }
}
