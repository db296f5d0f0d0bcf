package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.UnparsedDelete;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The DELETE whose answer is not parsed ({@link UnparsedDelete}, how the aggregator deletes the
 * intermediate reports it merged): what it sends, and that each refusal becomes the exception
 * fabric8's own delete would throw, so that {@link ApiCalls} retries, throttles and lets the caller
 * handle 404 and 409 as before.
 */
@EnableKubernetesMockClient
class UnparsedDeleteTest {
  private static final ResourceDefinitionContext EPHEMERAL =
      new ResourceDefinitionContext.Builder()
          .withGroup("reports.kyverno.io")
          .withVersion("v1")
          .withKind("EphemeralReport")
          .withPlural("ephemeralreports")
          .withNamespaced(true)
          .build();
  private static final ResourceDefinitionContext CLUSTER_EPHEMERAL =
      new ResourceDefinitionContext.Builder()
          .withGroup("reports.kyverno.io")
          .withVersion("v1")
          .withKind("ClusterEphemeralReport")
          .withPlural("clusterephemeralreports")
          .withNamespaced(false)
          .build();
  private static final String PATH = "/apis/reports.kyverno.io/v1/namespaces/ns/ephemeralreports/r";

  KubernetesMockServer server;
  KubernetesClient client;

  @BeforeEach
  void setUp() {
    // as the aggregator configures its client: fabric8's own retries off, ApiCalls retries
    client = MockCluster.client(server, null);
  }

  @AfterEach
  void tearDown() {
    MockCluster.close(client);
  }

  @Test
  void sendsTheVersionReadAsAPreconditionAndAsksForMetadataOnly() throws Exception {
    server
        .expect()
        .delete()
        .withPath(PATH)
        .andReturn(
            200, "{\"kind\":\"EphemeralReport\",\"spec\":{\"results\":[{\"policy\":\"p\"}]}}")
        .once();

    UnparsedDelete.delete(client, EPHEMERAL, "ns", "r", "42");

    RecordedRequest sent = server.takeRequest(10, TimeUnit.SECONDS);
    assertThat(sent.getMethod()).isEqualTo("DELETE");
    assertThat(sent.getPath()).isEqualTo(PATH);
    assertThat(sent.getHeader("Accept")).startsWith("application/json;as=PartialObjectMetadata");
    assertThat(sent.getBody().readUtf8())
        .contains("\"kind\":\"DeleteOptions\"")
        .contains("\"preconditions\":{\"resourceVersion\":\"42\"}");
  }

  @Test
  void aClusterScopedReportIsNamedWithoutANamespace() throws Exception {
    server
        .expect()
        .delete()
        .withPath("/apis/reports.kyverno.io/v1/clusterephemeralreports/c")
        .andReturn(200, "{}")
        .once();

    UnparsedDelete.delete(client, CLUSTER_EPHEMERAL, "", "c", "1");

    assertThat(server.takeRequest(10, TimeUnit.SECONDS).getPath())
        .isEqualTo("/apis/reports.kyverno.io/v1/clusterephemeralreports/c");
  }

  @Test
  void aConflictAndAMissingObjectAreTheCallersWithTheServersStatus() {
    server
        .expect()
        .delete()
        .withPath(PATH)
        .andReturn(409, status(409, "Conflict", "the precondition failed"))
        .once();
    server.expect().delete().withPath(PATH).andReturn(404, status(404, "NotFound", "gone")).once();

    assertThatThrownBy(() -> UnparsedDelete.delete(client, EPHEMERAL, "ns", "r", "1"))
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(409);
              assertThat(ApiCalls.changedMeanwhile(e)).isTrue();
              assertThat(e.getStatus().getReason()).isEqualTo("Conflict");
              assertThat(e.getMessage()).contains("the precondition failed");
            });
    assertThatThrownBy(() -> UnparsedDelete.delete(client, EPHEMERAL, "ns", "r", "1"))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(404));
  }

  @Test
  void throttlingIsRetriedAfterWhatTheServerAsksAndAnswerWithoutStatusKeepsItsCode() {
    var sleeper = new RecordingSleeper();
    var metrics = new CountingMetrics();
    var calls =
        new ApiCalls(
            new ApiBudget(1000, 1000, sleeper::nanos, sleeper),
            new RetryPolicy(
                5, Duration.ofMillis(100), Duration.ofSeconds(2), Duration.ofSeconds(30)),
            new Random(7),
            sleeper,
            metrics);
    server
        .expect()
        .delete()
        .withPath(PATH)
        .andReturn(429, "{\"kind\":\"Status\",\"code\":429,\"message\":\"too many requests\"}")
        .withHeader("Retry-After", "7")
        .once();
    server.expect().delete().withPath(PATH).andReturn(503, "upstream connect error").once();
    server.expect().delete().withPath(PATH).andReturn(200, "{}").once();

    calls.run("delete", () -> UnparsedDelete.delete(client, EPHEMERAL, "ns", "r", "1"));

    assertThat(metrics.retries).as("the 429 and the 503 retried").isEqualTo(2);
    assertThat(sleeper.sleeps)
        .as("the server's Retry-After honoured")
        .contains(Duration.ofSeconds(7));
    assertThat(server.getRequestCount()).isEqualTo(3);

    server.expect().delete().withPath(PATH).andReturn(503, "upstream connect error").once();
    assertThatThrownBy(() -> UnparsedDelete.delete(client, EPHEMERAL, "ns", "r", "1"))
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(503);
              assertThat(e.getMessage()).contains("upstream connect error");
            });
  }

  private static String status(int code, String reason, String message) {
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":"
        + code
        + ",\"reason\":\""
        + reason
        + "\",\"message\":\""
        + message
        + "\"}";
  }
}
