package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.metrics.WriteVerb;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A leader that paused past its renew deadline (a long GC, a frozen container) writes nothing
 * before a renewal of its Lease succeeded again: the pause is injected by moving the controller's
 * ticker, which the elector's local deadline is measured on, while fabric8 renews on the real clock
 * every retry period.
 */
@EnableKubernetesMockClient(crud = true)
class LeaseRenewDeadlineTest {
  KubernetesMockServer server;
  private ControllerFixture fixture;
  private final VirtualTime ticker = new VirtualTime(Instant.parse("2030-01-01T00:00:00Z"));

  @BeforeEach
  void setUp() {
    fixture = new ControllerFixture(server);
  }

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
  }

  private String leaseVersion() {
    return fixture
        .client
        .leases()
        .inNamespace("default")
        .withName("tally-aggregator")
        .get()
        .getMetadata()
        .getResourceVersion();
  }

  @Test
  void aLeaderPausedPastItsRenewDeadlineWritesOnlyAfterItRenewed() throws Exception {
    // the Lease's resourceVersion at each aggregate write, read on the aggregator thread just
    // before the request goes out
    List<String> leaseAtWrite = new CopyOnWriteArrayList<>();
    List<ReportRef> written = new CopyOnWriteArrayList<>();
    TallyMetrics recordLease =
        new TallyMetrics() {
          @Override
          public void write(WriteVerb verb, ReportRef ref) {
            leaseAtWrite.add(leaseVersion());
            written.add(ref);
          }
        };
    AggregatorController controller =
        fixture.started(
            fixture
                .controller(fixture.client, Scenario::newAggregator)
                .metrics(recordLease)
                .nanoTicker(ticker::nanos)
                .leaderElection(
                    new LeaderElectionSettings(
                        "default",
                        "tally-aggregator",
                        "replica-a",
                        Duration.ofSeconds(8),
                        Duration.ofSeconds(6),
                        Duration.ofSeconds(2))));
    Await.until("replica-a has rebuilt", controller::isRebuilt);
    var scenario = new Scenario(41, 1, 2);
    scenario.publishAll(fixture.publisher, "admission");
    scenario.awaitConverged(fixture.client);
    // the record of a write comes after its request: every write that converged the cluster is
    // recorded before the pause, so that none of them is counted as a write after it
    Await.until(
        "the writes before the pause are recorded",
        () -> written.containsAll(scenario.expected().stream().map(AggregateReport::ref).toList()));

    // the pause: on the elector's clock, the last renewal is now an hour old
    ticker.advance(Duration.ofHours(1));
    String atPause = leaseVersion();
    int writesBefore = leaseAtWrite.size();
    Subject s = scenario.subjects.get(0);
    fixture.publisher.publish(scenario.evaluate("background", s)).get(60, TimeUnit.SECONDS);

    // fabric8 renews within its retry period (real time); only then does the change go out
    scenario.awaitConverged(fixture.client);
    // the metric of a write is recorded after its request, and reads the Lease first: the cluster
    // can show the write before the record of it is made
    Await.until("the write is recorded", () -> leaseAtWrite.size() > writesBefore);
    List<String> after = leaseAtWrite.subList(writesBefore, leaseAtWrite.size());
    assertThat(after).as("writes after the pause").isNotEmpty();
    assertThat(after)
        .as("no write while the Lease was as it was at the pause (not renewed since)")
        .doesNotContain(atPause);
    assertThat(controller.isLeading()).isTrue();
  }
}
