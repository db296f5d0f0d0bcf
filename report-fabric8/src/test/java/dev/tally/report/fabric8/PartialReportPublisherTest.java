package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.Sleeper;
import dev.tally.report.fabric8.producer.AdoptionOutcome;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.producer.PublisherSaturatedException;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.WireResult;
import dev.tally.report.merge.EvaluationOrder;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class PartialReportPublisherTest {
  private static final CoverageKey POLICY = CoverageKey.of("kyverno", "require-labels");

  KubernetesMockServer server;
  KubernetesClient client;
  private PartialReportPublisher publisher;
  private final VirtualTime clock = new VirtualTime(Instant.parse("2026-01-01T00:00:00Z"));

  @BeforeEach
  void setUp() {
    client = MockCluster.client(server);
  }

  @AfterEach
  void tearDown() {
    if (publisher != null) {
      publisher.close();
    }
    MockCluster.close(client);
  }

  private PartialReportPublisher.Builder publisherBuilder() {
    return PartialReportPublisher.builder(client)
        .budget(ApiBudget.of(1000, 1000))
        .sleeper(new RecordingSleeper())
        .clock(clock);
  }

  static PartialReport evaluation(Subject subject, long generation, ResultStatus status) {
    return new PartialReport(
        "admission",
        subject,
        "",
        Set.of(POLICY),
        List.of(
            Result.builder()
                .source(POLICY.source())
                .policy(POLICY.policy())
                .rule("check")
                .status(status)
                .build()),
        new Timestamp(1_700_000_000L, 5),
        generation);
  }

  private List<PartialReportResource> partials(String namespace) {
    return client.resources(PartialReportResource.class).inNamespace(namespace).list().getItems();
  }

  @Test
  void oneObjectPerProducerAndSubjectUpdatedInPlaceAndOwnedBySubject() throws Exception {
    publisher = publisherBuilder().build();
    var pod = MockCluster.pod(client, "team-a", "web");
    Subject subject = Subject.of("v1", "Pod", "team-a", "web", pod.getMetadata().getUid());

    publisher.publish(evaluation(subject, 1, ResultStatus.FAIL)).get(60, TimeUnit.SECONDS);
    String uidOfObject = partials("team-a").get(0).getMetadata().getUid();
    publisher.publish(evaluation(subject, 2, ResultStatus.PASS)).get(60, TimeUnit.SECONDS);

    assertThat(partials("team-a"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getMetadata().getName())
                  .isEqualTo(PartialReportPublisher.objectName("admission", subject));
              assertThat(p.getMetadata().getUid()).as("updated in place").isEqualTo(uidOfObject);
              assertThat(p.getSpec().results())
                  .extracting(WireResult::result)
                  .containsExactly("pass");
              assertThat(p.getMetadata().getOwnerReferences())
                  .singleElement()
                  .satisfies(o -> assertThat(o.getUid()).isEqualTo(pod.getMetadata().getUid()));
              assertThat(p.getMetadata().getLabels())
                  .containsEntry(WireNames.SUBJECT_UID_LABEL, pod.getMetadata().getUid())
                  .containsEntry(WireNames.PRODUCER_LABEL, "admission");
            });
    var byMethod = MockCluster.drainByMethod(server);
    assertThat(byMethod.getOrDefault("DELETE", 0)).as("no create-then-delete churn").isZero();
    assertThat(byMethod.get("POST")).as("the pod and one partial").isEqualTo(2);
  }

  @Test
  void anOlderEvaluationNeverOverwritesANewerOne() throws Exception {
    publisher = publisherBuilder().build();
    Subject subject = Subject.of("v1", "Pod", "team-a", "web", "uid-1");
    publisher.publish(evaluation(subject, 5, ResultStatus.FAIL)).get(60, TimeUnit.SECONDS);
    publisher.publish(evaluation(subject, 4, ResultStatus.PASS)).get(60, TimeUnit.SECONDS);
    publisher.publish(evaluation(subject, 5, ResultStatus.FAIL)).get(60, TimeUnit.SECONDS);

    assertThat(partials("team-a"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getSpec().generation()).isEqualTo(5L);
              assertThat(p.getSpec().results())
                  .extracting(WireResult::result)
                  .containsExactly("fail");
            });
    assertThat(MockCluster.drainByMethod(server).getOrDefault("PUT", 0)).isZero();
  }

  /**
   * Two evaluations that tie in time, generation and producer but differ: whichever is published
   * first, the cluster keeps the one the merge's {@link EvaluationOrder} calls later, which is the
   * one an aggregator that saw both keeps; so a rebuild from the cluster equals the live state.
   */
  @Test
  void underATieTheClusterKeepsWhatTheMergeKeepsWhicheverCameFirst() throws Exception {
    publisher = publisherBuilder().build();
    PartialReport fail =
        evaluation(Subject.of("v1", "Pod", "team-a", "web", "uid-1"), 5, ResultStatus.FAIL);
    PartialReport pass = evaluation(fail.subject(), 5, ResultStatus.PASS);
    assertThat(EvaluationOrder.compare(fail, pass)).as("a tie only content decides").isNotZero();
    String expected =
        (EvaluationOrder.supersedes(pass, fail) ? pass : fail).results().get(0).status().wireName();
    for (List<PartialReport> sequence : List.of(List.of(fail, pass), List.of(pass, fail))) {
      client.resources(PartialReportResource.class).inNamespace("team-a").delete();
      Await.until(
          "the old object is gone", () -> partials("team-a").isEmpty(), Duration.ofSeconds(30));
      publisher.close();
      publisher = publisherBuilder().build(); // no memory of what the last round wrote
      for (PartialReport p : sequence) {
        publisher.publish(p).get(60, TimeUnit.SECONDS);
      }
      assertThat(partials("team-a"))
          .as("published %s then %s", sequence.get(0).results(), sequence.get(1).results())
          .singleElement()
          .satisfies(
              p ->
                  assertThat(p.getSpec().results())
                      .extracting(WireResult::result)
                      .containsExactly(expected));
    }
  }

  @Test
  void pendingWritesCoalesceAndBackPressureIsVisible() throws Exception {
    var release = new CountDownLatch(1);
    var blocked = new CountDownLatch(1);
    Sleeper gate =
        d -> {
          blocked.countDown();
          release.await(30, TimeUnit.SECONDS);
        };
    var budget = new ApiBudget(1, 1, () -> 0L, gate);
    budget.acquire(); // the bucket is empty and the ticker never moves: every request waits
    publisher = publisherBuilder().budget(budget).maxPending(1).build();
    Subject first = Subject.of("v1", "Pod", "team-a", "first", "uid-first");
    Subject busy = Subject.of("v1", "Pod", "team-a", "busy", "uid-busy");

    CompletableFuture<Void> inFlight = publisher.publish(evaluation(first, 1, ResultStatus.PASS));
    assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(publisher.pendingCount()).as("the first write is in flight").isZero();

    var f1 = publisher.publish(evaluation(busy, 1, ResultStatus.FAIL));
    var f3 = publisher.publish(evaluation(busy, 3, ResultStatus.PASS));
    var f2 = publisher.publish(evaluation(busy, 2, ResultStatus.WARN));
    assertThat(publisher.pendingCount()).as("latest wins while pending").isEqualTo(1);
    assertThatThrownBy(
            () ->
                publisher.publish(
                    evaluation(
                        Subject.of("v1", "Pod", "team-a", "third", "u3"), 1, ResultStatus.PASS)))
        .isInstanceOf(PublisherSaturatedException.class)
        .hasMessageContaining("1 pending");

    release.countDown();
    CompletableFuture.allOf(inFlight, f1, f2, f3).get(60, TimeUnit.SECONDS);
    var busyObject =
        client
            .resources(PartialReportResource.class)
            .inNamespace("team-a")
            .withName(PartialReportPublisher.objectName("admission", busy))
            .get();
    assertThat(busyObject.getSpec().generation()).isEqualTo(3L);
    assertThat(MockCluster.drainByMethod(server).getOrDefault("PUT", 0))
        .as("three evaluations, one create, no update")
        .isZero();
  }

  @Test
  void aReportWrittenBeforeItsSubjectExistedIsAdoptedOrRemovedAfterGrace() throws Exception {
    publisher = publisherBuilder().adoptionGrace(Duration.ofMinutes(5)).build();
    Subject later = Subject.of("v1", "Pod", "team-a", "created-later", "");
    Subject never = Subject.of("v1", "Pod", "team-a", "never-created", "");
    publisher.publish(evaluation(later, 1, ResultStatus.FAIL)).get(60, TimeUnit.SECONDS);
    publisher.publish(evaluation(never, 1, ResultStatus.FAIL)).get(60, TimeUnit.SECONDS);
    assertThat(partials("team-a"))
        .hasSize(2)
        .allSatisfy(p -> assertThat(p.getMetadata().getOwnerReferences()).isEmpty());

    assertThat(publisher.adoptPending()).isEqualTo(new AdoptionOutcome(0, 0, 2));
    var pod = MockCluster.pod(client, "team-a", "created-later");
    clock.advance(Duration.ofMinutes(6));
    assertThat(publisher.adoptPending()).isEqualTo(new AdoptionOutcome(1, 1, 0));

    assertThat(partials("team-a"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getMetadata().getName())
                  .isEqualTo(PartialReportPublisher.objectName("admission", later));
              assertThat(p.getSpec().subject().getUid()).isEqualTo(pod.getMetadata().getUid());
              assertThat(p.getMetadata().getOwnerReferences())
                  .singleElement()
                  .satisfies(o -> assertThat(o.getUid()).isEqualTo(pod.getMetadata().getUid()));
            });
  }

  @Test
  void anEvaluationAboutAnotherNamespaceCannotBeBuilt() {
    Subject subject = Subject.of("v1", "Pod", "team-a", "web", "uid-1");
    Result foreign =
        Result.builder()
            .policy("p")
            .status(ResultStatus.FAIL)
            .resource(Subject.of("v1", "Pod", "team-b", "db", "uid-2"))
            .build();
    assertThatThrownBy(
            () ->
                new PartialReport(
                    "admission", subject, "", Set.of(), List.of(foreign), Timestamp.EPOCH, 0))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("results[0].resources[0].namespace");
  }
}
