package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.resource.WireResult;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The controller end to end against the mock API server in CRUD mode. */
@EnableKubernetesMockClient(crud = true)
class AggregatorControllerTest {
  KubernetesMockServer server;
  KubernetesClient client;
  private final VirtualTime clock = new VirtualTime(Instant.parse("2030-01-01T00:00:00Z"));
  private final CountingMetrics metrics = new CountingMetrics();
  private ControllerFixture fixture;
  private PartialReportPublisher publisher;

  @BeforeEach
  void setUp() {
    fixture = new ControllerFixture(server);
    client = fixture.client;
    publisher = fixture.publisher;
  }

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
  }

  AggregatorController.Builder controller(
      KubernetesClient c, Supplier<ReportAggregator> aggregators) {
    return fixture
        .controller(c, aggregators)
        .retryPolicy(
            new RetryPolicy(
                6, Duration.ofMillis(10), Duration.ofMillis(100), Duration.ofSeconds(60)))
        .metrics(metrics)
        .clock(clock);
  }

  AggregatorController started(AggregatorController.Builder b) {
    return fixture.started(b);
  }

  @Test
  void producersAcrossNamespacesConvergeAndDeletingASubjectRemovesItsResults() throws Exception {
    var scenario = new Scenario(1, 3, 4);
    started(controller(client, Scenario::newAggregator));
    scenario.publishAll(publisher, "admission");
    scenario.awaitConverged(client);
    scenario.publishAll(publisher, "background");
    scenario.awaitConverged(client);

    Subject gone = scenario.subjects.get(1);
    scenario.garbageCollect(client, gone);
    scenario.awaitConverged(client);
    assertThat(Scenario.observed(client))
        .flatExtracting(AggregateReport::results)
        .flatExtracting(Result::resources)
        .doesNotContain(gone);
    assertThat(metrics.rejected).isEmpty();
  }

  @Test
  void steadyStateMakesZeroWrites() throws Exception {
    var scenario = new Scenario(2, 2, 3);
    AggregatorController controller = started(controller(client, Scenario::newAggregator));
    scenario.publishAll(publisher, "admission");
    scenario.awaitConverged(client);
    // the cluster holds every aggregate; a flush now (queued behind whatever the controller still
    // had to do) finds nothing more to write. Waiting for a flush with changes instead would wait
    // forever when the start-up resync wrote everything before any flush ran
    controller.flushNow().get();
    MockCluster.drainByMethod(server);

    // the same evaluations again, a flush and a full resync: nothing to write
    for (PartialReport e : List.copyOf(scenario.latest.values())) {
      publisher.publish(e).get();
    }
    controller.flushNow().get();
    controller.resyncNow().get();
    controller.flushNow().get();

    var requests = MockCluster.drainByMethod(server);
    assertThat(MockCluster.writes(requests)).as("writes in %s", requests).isZero();
    assertThat(requests.get("GET")).as("the resync lists").isPositive();
  }

  @Test
  void badPartialsAreRejectedAndTheOthersFlow() throws Exception {
    var scenario = new Scenario(3, 2, 2);
    started(
        controller(
            client,
            () ->
                ReportAggregator.builder()
                    .caps(InputCaps.defaults().withMaxResultsPerPartial(3))
                    .build()));
    // a partial in team-0 that speaks about a subject in team-1
    var crossNamespace =
        ReportCodec.encodePartial(
            scenario.evaluate("evil", scenario.subjects.get(2)), "cross-namespace");
    crossNamespace.getMetadata().setNamespace("team-0");
    scenario.latest.remove("evil/" + scenario.subjects.get(2).uid());
    client.resource(crossNamespace).create();
    // an unknown status
    var invalid =
        ReportCodec.encodePartial(scenario.evaluate("broken", scenario.subjects.get(0)), "invalid");
    scenario.latest.remove("broken/" + scenario.subjects.get(0).uid());
    var results = new ArrayList<>(invalid.getSpec().results());
    results.add(
        new WireResult(
            "kyverno",
            "require-labels",
            "x",
            "maybe",
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null));
    invalid.setSpec(
        new PartialReportSpec(
            invalid.getSpec().producer(),
            invalid.getSpec().subject(),
            null,
            invalid.getSpec().observedAt(),
            1L,
            invalid.getSpec().coverage(),
            results));
    client.resource(invalid).create();
    // more results than the aggregator's cap of 3
    Subject big = scenario.subjects.get(1);
    var oversized = scenario.evaluate("scanner", big);
    scenario.latest.remove("scanner/" + big.uid());
    List<Result> many = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      many.add(
          Result.builder()
              .source("kyverno")
              .policy("require-labels")
              .rule("r" + i)
              .status(dev.tally.report.api.ResultStatus.FAIL)
              .build());
    }
    publisher
        .publish(
            new PartialReport(
                "scanner", big, "", oversized.coverage(), many, oversized.observedAt(), 0))
        .get();

    scenario.publishAll(publisher, "admission");
    scenario.awaitConverged(client);
    Await.until(
        "three rejections counted",
        () -> metrics.rejected.values().stream().mapToInt(Integer::intValue).sum() >= 3);
    assertThat(metrics.rejected)
        .containsEntry("namespace", 1)
        .containsEntry("invalid", 1)
        .containsEntry("capacity", 1);
    Await.until(
        "an event per rejected partial",
        () -> client.v1().events().inAnyNamespace().list().getItems().size() >= 3);
    assertThat(client.v1().events().inAnyNamespace().list().getItems())
        .allSatisfy(e -> assertThat(e.getReason()).isEqualTo("Rejected"))
        .anySatisfy(e -> assertThat(e.getMessage()).contains("spec.subject.namespace"))
        .anySatisfy(e -> assertThat(e.getMessage()).contains("spec.results[3].result"));
  }
}
