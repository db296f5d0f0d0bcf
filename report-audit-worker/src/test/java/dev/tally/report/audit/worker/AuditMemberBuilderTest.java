package dev.tally.report.audit.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.audit.UnitState;
import dev.tally.report.audit.UnitStatus;
import dev.tally.report.fabric8.MockCluster;
import dev.tally.report.fabric8.VirtualTime;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The member takes the request settings of every Tally component the same way. */
@EnableKubernetesMockClient(crud = true)
class AuditMemberBuilderTest {
  private static final String UNIT_PAGE = "/api/v1/namespaces/app-0/configmaps?limit=50";
  private static final String UNIT = "ConfigMap.v1.core_app-0";

  KubernetesMockServer server;
  KubernetesClient client;
  private final VirtualTime time = new VirtualTime(Instant.parse("2026-01-01T00:00:05Z"));
  private final List<Integer> retried = new CopyOnWriteArrayList<>();
  private PartialReportPublisher publisher;

  @BeforeEach
  void setUp() {
    client = MockCluster.client(server);
    AuditCluster.generate(client);
    publisher =
        PartialReportPublisher.builder(client)
            .budget(ApiBudget.of(10_000, 10_000))
            .clock(time)
            .build();
    server
        .expect()
        .get()
        .withPath(UNIT_PAGE)
        .andReturn(503, new StatusBuilder().withCode(503).withMessage("the server is busy").build())
        .once();
  }

  @AfterEach
  void tearDown() {
    publisher.close();
    MockCluster.close(client);
  }

  private AuditMember.Builder builder() {
    return AuditCluster.soloMember(client, publisher, time, "builder", "solo")
        .metrics(
            new TallyMetrics() {
              @Override
              public void retry(int statusCode, Duration delay) {
                retried.add(statusCode);
              }
            });
  }

  private void tickUntilTheUnitIsReported(AuditMember member) {
    for (int round = 0; round < 100 && member.ledger().status(UNIT).isEmpty(); round++) {
      member.tick();
      time.advance(Duration.ofSeconds(1));
    }
  }

  @Test
  void theRetryPolicyAndTheMetricsReachTheMembersRequests() {
    AuditMember member = builder().retryPolicy(RetryPolicy.defaults()).build();
    tickUntilTheUnitIsReported(member);

    UnitStatus status = member.ledger().status(UNIT).orElseThrow();
    assertThat(status.state())
        .as("the 503 was retried within the attempt")
        .isEqualTo(UnitState.DONE);
    assertThat(status.attempts()).isEqualTo(1);
    assertThat(retried).containsExactly(503);
  }

  @Test
  void aPolicyOfOneAttemptFailsTheUnitInstead() {
    AuditMember member =
        builder()
            .retryPolicy(new RetryPolicy(1, Duration.ZERO, Duration.ZERO, Duration.ZERO))
            .build();
    tickUntilTheUnitIsReported(member);

    UnitStatus status = member.ledger().status(UNIT).orElseThrow();
    assertThat(status.state()).isEqualTo(UnitState.FAILED);
    assertThat(status.reason()).contains("503");
    assertThat(retried).isEmpty();
  }

  @Test
  void aProcessWideBudgetIsRefusedNamingTheGroupBudget() {
    assertThatThrownBy(() -> builder().budget(ApiBudget.of(10, 10)))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("groupBudget(AuditBudget)");
  }
}
