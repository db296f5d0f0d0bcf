package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.testenv.Await;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link AggregatorController#isRebuilt()}, what a readiness probe asks: true only while the
 * replica leads and has rebuilt from the partial reports since it started leading.
 */
@EnableKubernetesMockClient(crud = true)
class ControllerRebuiltTest {
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
  void aControllerIsRebuiltOnceItLeadsAndHasDiffedAndNoLongerOnceClosed() throws Exception {
    var scenario = new Scenario(4, 2, 2);
    scenario.publishAll(fixture.publisher, "admission");
    AggregatorController controller =
        fixture.closeLater(fixture.controller(fixture.client, Scenario::newAggregator).build());
    assertThat(controller.isRebuilt()).as("before start").isFalse();

    controller.start();
    Await.until("rebuilt", controller::isRebuilt);
    // rebuilt means the owned aggregates were diffed and written: they are all there
    scenario.awaitConverged(fixture.client);
    assertThat(controller.isLeading()).isTrue();

    controller.close();
    assertThat(controller.isRebuilt()).as("after close").isFalse();
    assertThat(controller.isLeading()).isFalse();
  }

  @Test
  void aStandbyIsNotRebuiltAndTheReplicaThatTakesOverIs() throws Exception {
    AggregatorController a = fixture.started(elected("replica-a"));
    Await.until("replica-a leads and has rebuilt", a::isRebuilt);
    AggregatorController b = fixture.started(elected("replica-b"));
    // replica-b campaigns; it has nothing to rebuild while replica-a holds the Lease
    a.flushNow().get();
    assertThat(b.isLeading()).isFalse();
    assertThat(b.isRebuilt()).isFalse();

    a.close();
    assertThat(a.isRebuilt()).isFalse();
    Await.until("replica-b takes over and rebuilds", b::isRebuilt, Duration.ofSeconds(60));
  }

  /** Leading is not enough: while the owned aggregates cannot be listed, it has not rebuilt. */
  @Test
  void aLeaderThatCannotListTheOwnedAggregatesHasNotRebuilt() throws Exception {
    server
        .expect()
        .get()
        .withPath(
            "/apis/wgpolicyk8s.io/v1alpha2/policyreports?labelSelector="
                + "app.kubernetes.io%2Fmanaged-by%3Dtally&limit=500")
        .andReturn(503, "unavailable")
        .always();
    CountingMetrics metrics = new CountingMetrics();
    AggregatorController controller =
        fixture.started(
            fixture.controller(fixture.client, Scenario::newAggregator).metrics(metrics));
    // the first resync's attempts all failed, and another resync is under way
    Await.until(
        "the resync's retries ran out",
        () -> metrics.retries > ControllerFixture.FAST_RETRIES.maxAttempts());

    assertThat(controller.isLeading()).isTrue();
    assertThat(controller.isRebuilt()).isFalse();
  }

  private AggregatorController.Builder elected(String identity) {
    return fixture
        .controller(fixture.client, Scenario::newAggregator)
        .leaderElection(
            new LeaderElectionSettings(
                "default",
                "tally-aggregator",
                identity,
                Duration.ofSeconds(3),
                Duration.ofSeconds(2),
                Duration.ofMillis(200)));
  }
}
