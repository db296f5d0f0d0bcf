package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The suite the real API server settles on with the aggregator's HTTP client (fabric8's vert.x 5
 * client as {@link CipherOrder} configures it), read from the JDK's own record of each handshake
 * (JFR's {@code jdk.TLSHandshake}): ChaCha20-Poly1305 when the client offers it first, AES-GCM with
 * the client's own order. The second case is what shows the first is the order's doing.
 */
@ExtendWith(RealKubernetes.class)
class CipherOrderIT {
  @Test
  void theApiServerSettlesOnChaChaWhenTheClientOffersItFirst(
      RealKubernetes.Cluster cluster, @TempDir Path dir) throws Exception {
    assertThat(handshakes(cluster, CipherOrder.CHACHA20_FIRST, dir.resolve("chacha.jfr")))
        .isNotEmpty()
        .allSatisfy(suite -> assertThat(suite).contains("CHACHA20_POLY1305"));
  }

  @Test
  void theClientsOwnOrderGetsAesGcm(RealKubernetes.Cluster cluster, @TempDir Path dir)
      throws Exception {
    assertThat(handshakes(cluster, CipherOrder.CLIENT_DEFAULT, dir.resolve("default.jfr")))
        .isNotEmpty()
        .allSatisfy(suite -> assertThat(suite).contains("_GCM_"));
  }

  /** The suites of the handshakes with the API server while a client so ordered lists a kind. */
  private static List<String> handshakes(
      RealKubernetes.Cluster cluster, CipherOrder order, Path jfr) throws Exception {
    Config config = cluster.admin().getConfiguration();
    URI server = URI.create(config.getMasterUrl());
    int port = server.getPort() > 0 ? server.getPort() : 443;
    try (Recording recording = new Recording()) {
      recording.enable("jdk.TLSHandshake");
      recording.start();
      try (KubernetesClient client =
          new KubernetesClientBuilder()
              .withConfig(config)
              .withHttpClientFactory(order.httpClientFactory())
              .build()) {
        client.namespaces().list();
      }
      recording.stop();
      recording.dump(jfr);
    }
    return RecordingFile.readAllEvents(jfr).stream()
        .filter(e -> e.getEventType().getName().equals("jdk.TLSHandshake"))
        .filter(e -> e.getInt("peerPort") == port)
        .map((RecordedEvent e) -> e.getString("cipherSuite"))
        .toList();
  }
}
