package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A failure the caller cannot act on unless it is told: {@code start()} on a server that refuses
 * throws, and a publisher's future fails, each with the root cause in its message (fabric8 wraps a
 * refused connection as "An error has occurred.", which names nothing). Without an slf4j binding
 * these are all a user sees.
 */
@EnableKubernetesMockClient(crud = true)
class FailureVisibilityTest {
  private static final String LEASE =
      "/apis/coordination.k8s.io/v1/namespaces/default/leases/tally-aggregator";
  private static final String FORBIDDEN =
      "leases.coordination.k8s.io \"tally-aggregator\" is forbidden: User"
          + " \"system:serviceaccount:shop:operator\" cannot get resource \"leases\"";

  /** Two attempts, no real waiting: the failure is final fast. */
  private static final RetryPolicy TWO_ATTEMPTS =
      new RetryPolicy(2, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ZERO);

  KubernetesMockServer server;
  private ControllerFixture fixture;

  @BeforeEach
  void setUp() {
    fixture = new ControllerFixture(server);
  }

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
  }

  @Test
  void startFailsWithTheServersReasonWhenTheLeaseIsForbidden() {
    server
        .expect()
        .get()
        .withPath(LEASE)
        .andReturn(
            403,
            new StatusBuilder()
                .withCode(403)
                .withReason("Forbidden")
                .withMessage(FORBIDDEN)
                .build())
        .always();
    AggregatorController controller =
        fixture.closeLater(
            fixture
                .controller(fixture.client, Scenario::newAggregator)
                .leaderElection(
                    LeaderElectionSettings.of("default", "tally-aggregator", "replica-a"))
                .build());

    assertThatThrownBy(controller::start)
        .isInstanceOf(RequestFailedException.class)
        .hasMessageContaining("lease default/tally-aggregator")
        .hasMessageContaining(FORBIDDEN);
    assertThat(controller.isLeading()).isFalse();
  }

  @Test
  void startFailsNamingARefusedConnection() {
    KubernetesClient refusing = MockCluster.refusingClient();
    fixture.closeLater(MockCluster.closing(refusing));
    RecordingSleeper sleeper = new RecordingSleeper();
    AggregatorController controller =
        fixture.closeLater(
            fixture
                .controller(refusing, Scenario::newAggregator)
                .retryPolicy(TWO_ATTEMPTS)
                .sleeper(sleeper)
                .build());

    assertThatThrownBy(controller::start)
        .isInstanceOf(RequestFailedException.class)
        .hasMessageContaining("list partialreports")
        .hasMessageContaining("Connection refused")
        .hasMessageNotContaining("An error has occurred");
    assertThat(sleeper.sleeps).as("retried as a connection error, once").hasSize(1);
  }

  @Test
  void aPublishersFutureFailsNamingARefusedConnection() {
    KubernetesClient refusing = MockCluster.refusingClient();
    fixture.closeLater(MockCluster.closing(refusing));
    PartialReportPublisher publisher =
        fixture.closeLater(
            PartialReportPublisher.builder(refusing)
                .retryPolicy(TWO_ATTEMPTS)
                .sleeper(new RecordingSleeper())
                .build());
    Subject pod = Subject.of("v1", "Pod", "shop", "web-0", "uid-web-0");

    var written =
        publisher.publish(PartialReportPublisherTest.evaluation(pod, 1, ResultStatus.FAIL));

    assertThatThrownBy(() -> written.get(90, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(RequestFailedException.class)
        .hasMessageContaining("admission")
        .hasMessageContaining("Pod shop/web-0")
        .hasMessageContaining("Connection refused")
        .hasMessageNotContaining("An error has occurred");
  }
}
