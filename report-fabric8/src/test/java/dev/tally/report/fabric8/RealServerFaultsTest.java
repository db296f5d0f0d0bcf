package dev.tally.report.fabric8;

import static dev.tally.report.fabric8.RealServer.auditEventsOnceLogged;
import static dev.tally.report.fabric8.RealServer.auditMark;
import static dev.tally.report.fabric8.RealServer.awaitOnlyOwnPartials;
import static dev.tally.report.fabric8.RealServer.controllerOn;
import static dev.tally.report.fabric8.RealServer.installCrds;
import static dev.tally.report.fabric8.RealServer.installRbac;
import static dev.tally.report.fabric8.RealServer.publishFailure;
import static dev.tally.report.fabric8.RealServer.results;
import static dev.tally.report.fabric8.RealServer.subject;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.AuditLog;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Faults as a real kube-apiserver produces them, not as a mock simulates them: 409s from concurrent
 * writers, a watch that expires while the aggregator is cut off, and a request larger than the
 * server accepts. Each is counted or shown from the server's side (its audit log, its stored
 * objects).
 */
@ExtendWith(RealKubernetes.class)
class RealServerFaultsTest {
  private static final long T0 = 1_700_000_000L;

  /**
   * Two producers on their own clients publish evaluations of one subject at the same time, round
   * after round. The server refuses one of each pair with a real 409 (an AlreadyExists on the first
   * create, a stale resourceVersion after); the publisher re-reads and keeps the later evaluation,
   * so the stored partial report and the aggregate end with the last, latest one.
   */
  @Test
  void concurrentPublishersOfOneSubjectGetReal409sAndTheLaterEvaluationWins(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installRbac(admin);
    String ns = cluster.namespace();
    Subject subject = subject(admin, ns, "contested");
    long mark = auditMark(cluster);
    int rounds = 8;
    try (AggregatorController controller = controllerOn(admin).build().start();
        PartialReportPublisher a =
            PartialReportPublisher.builder(cluster.serviceAccount("producer-a", "tally-producer"))
                .build();
        PartialReportPublisher b =
            PartialReportPublisher.builder(cluster.serviceAccount("producer-b", "tally-producer"))
                .build()) {
      for (int round = 0; round < rounds; round++) {
        // a's evaluation is the older of each pair, b's the newer: whoever writes last, b's stays
        CompletableFuture<Void> first = a.publish(evaluation(subject, T0 + 2 * round, "a", round));
        CompletableFuture<Void> second =
            b.publish(evaluation(subject, T0 + 2 * round + 1, "b", round));
        CompletableFuture.allOf(first, second).get(120, TimeUnit.SECONDS);
      }
      String last = "b " + (rounds - 1);
      Await.until(
          "the aggregate holds the latest evaluation",
          () -> messages(admin, ns).equals(List.of(last)),
          Duration.ofSeconds(60));
      var stored =
          admin
              .resources(PartialReportResource.class)
              .inNamespace(ns)
              .withName(PartialReportPublisher.objectName("background", subject))
              .get();
      assertThat(ReportCodec.decodePartial(stored).observedAt())
          .isEqualTo(Timestamp.ofSeconds(T0 + 2 * (rounds - 1) + 1));
    }
    java.util.function.ToLongFunction<List<AuditLog.Event>> conflictsIn =
        events ->
            events.stream()
                .filter(e -> e.user().startsWith("system:serviceaccount:" + ns + ":producer-"))
                .filter(e -> e.resource().equals("partialreports") && e.code() == 409)
                .count();
    // read once the log holds a 409 and a marker made after the publishes
    long conflicts =
        conflictsIn.applyAsLong(
            auditEventsOnceLogged(cluster, mark, events -> conflictsIn.applyAsLong(events) > 0));
    assertThat(conflicts).as("real 409s answered to the two producers").isPositive();
  }

  /**
   * Another writer changes an aggregate Tally owns (a label, as a person with kubectl would): the
   * aggregator's next update carries a stale resourceVersion and gets a real 409; it re-reads and
   * writes the new content.
   */
  @Test
  void anotherWriterChangingAnAggregateGivesTheAggregatorARealConflictItRecoversFrom(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installRbac(admin);
    String ns = cluster.namespace();
    awaitOnlyOwnPartials(admin, ns); // else another test's leftovers make it re-read in between
    Subject first = subject(admin, ns, "first");
    Subject second = subject(admin, ns, "second");
    long mark = auditMark(cluster);
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build();
        AggregatorController controller =
            controllerOn(cluster.serviceAccount("aggregator", "tally-aggregator"))
                .build()
                .start()) {
      publishFailure(publisher, "background", first, "require-labels");
      Await.until("the first aggregate is written", () -> results(admin, ns) == 1);
      PolicyReportResource aggregate =
          admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems().get(0);
      admin
          .resources(PolicyReportResource.class)
          .inNamespace(ns)
          .withName(aggregate.getMetadata().getName())
          .edit(
              r -> {
                r.getMetadata().getLabels().put("example.com/reviewed", "yes");
                return r;
              });

      publishFailure(publisher, "background", second, "require-labels");
      Await.until("the aggregate holds both results", () -> results(admin, ns) == 2);
    }
    java.util.function.Function<List<AuditLog.Event>, List<AuditLog.Event>> updates =
        events ->
            events.stream()
                .filter(e -> e.user().equals("system:serviceaccount:" + ns + ":aggregator"))
                .filter(e -> e.resource().equals("policyreports") && e.verb().equals("update"))
                .toList();
    // read once the log holds the 409 and the success, and a marker made after them
    var aggregatorWrites =
        updates.apply(
            auditEventsOnceLogged(
                cluster,
                mark,
                events ->
                    updates.apply(events).stream()
                        .map(AuditLog.Event::code)
                        .toList()
                        .containsAll(List.of(409, 200))));
    assertThat(aggregatorWrites)
        .as("the aggregator's updates: a real 409, then a success")
        .extracting(AuditLog.Event::code)
        .contains(409, 200);
  }

  /**
   * The aggregator is cut off from the server (its connections dropped, new ones refused) while a
   * partial report is deleted and another created, and etcd is compacted. When it reconnects, its
   * watch from the old resourceVersion has expired: the informer relists (a LIST in the audit log),
   * and the aggregates show the deletion it never saw as an event and the new evaluation.
   */
  @Test
  void aWatchThatExpiresWhileCutOffMakesTheInformerRelistAndMissedChangesArrive(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installRbac(admin);
    String ns = cluster.namespace();
    Subject kept = subject(admin, ns, "kept");
    Subject deleted = subject(admin, ns, "deleted");
    Subject added = subject(admin, ns, "added");
    KubernetesClient account = cluster.serviceAccount("aggregator", "tally-aggregator");
    URI server = URI.create(account.getConfiguration().getMasterUrl());
    try (ChaosProxy proxy = new ChaosProxy(server.getPort());
        KubernetesClient throughProxy = viaProxy(account.getConfiguration(), proxy);
        PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build();
        // no periodic resync: any LIST of partial reports after the cut is the informer's
        AggregatorController controller =
            controllerOn(throughProxy).resyncPeriod(Duration.ZERO).build().start()) {
      publishFailure(publisher, "background", kept, "require-labels");
      publishFailure(publisher, "background", deleted, "require-labels");
      Await.until("both are aggregated", () -> results(admin, ns) == 2);

      proxy.refuse(true);
      proxy.dropAll();
      admin
          .resources(PartialReportResource.class)
          .inNamespace(ns)
          .withName(PartialReportPublisher.objectName("background", deleted))
          .delete();
      publishFailure(publisher, "background", added, "disallow-latest");
      cluster.env().compactEtcd();
      long reconnected = auditMark(cluster);
      proxy.refuse(false);

      Await.until(
          "the aggregates show what happened while cut off",
          () -> subjectsOf(admin, ns).equals(List.of("added", "kept")),
          Duration.ofSeconds(120));
      java.util.function.Function<List<AuditLog.Event>, List<AuditLog.Event>> partialRequests =
          events ->
              events.stream()
                  .filter(e -> e.user().equals("system:serviceaccount:" + ns + ":aggregator"))
                  .filter(e -> e.resource().equals("partialreports"))
                  .toList();
      // read once the log holds the relist and a marker made after the aggregates showed it
      var after =
          partialRequests.apply(
              auditEventsOnceLogged(
                  cluster,
                  reconnected,
                  events ->
                      partialRequests.apply(events).stream()
                          .anyMatch(e -> e.verb().equals("list"))));
      assertThat(after)
          .as("the informer relisted after its watch expired: %s", after)
          .anyMatch(e -> e.verb().equals("list"));
      assertThat(controller.isLeading()).isTrue();
    }
  }

  /**
   * A partial report larger than the API server accepts (its request body limit is 3 MiB; the mock
   * server takes anything): the publish fails with an error that says so and names the object, and
   * nothing is lost — the stored evaluation and the aggregate keep the previous one, and the next
   * publish of a normal size goes through.
   */
  @Test
  void aPartialReportLargerThanTheServerAcceptsFailsClearlyAndLosesNothing(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    Subject subject = subject(admin, ns, "huge");
    Subject other = subject(admin, ns, "other");
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build();
        AggregatorController controller = controllerOn(admin).build().start()) {
      publishFailure(publisher, "background", subject, "require-labels");
      Await.until("the first evaluation is aggregated", () -> results(admin, ns) == 1);

      List<Result> many = new ArrayList<>();
      for (int i = 0; i < 260; i++) {
        many.add(
            Result.builder()
                .source("kyverno")
                .policy("policy-" + i)
                .rule("check")
                .status(ResultStatus.FAIL)
                .message("x".repeat(15_000))
                .build());
      }
      var tooLarge =
          publisher.publish(
              PartialReport.builder()
                  .producer("background")
                  .subject(subject)
                  .results(many)
                  .observedAt(Timestamp.ofSeconds(T0 + 10))
                  .build());
      var failure =
          org.assertj.core.api.Assertions.catchThrowableOfType(
              () -> tooLarge.get(120, TimeUnit.SECONDS), ExecutionException.class);
      assertThat(failure.getCause()).isInstanceOf(RequestFailedException.class);
      RequestFailedException refused = (RequestFailedException) failure.getCause();
      assertThat(refused.code()).isEqualTo(413);
      assertThat(refused.getMessage())
          .contains(PartialReportPublisher.objectName("background", subject))
          .containsIgnoringCase("too large");

      publishFailure(publisher, "background", other, "require-labels");
      Await.until("the next publish is aggregated", () -> results(admin, ns) == 2);
      assertThat(messages(admin, ns))
          .hasSize(2)
          .allMatch(m -> m.equals("label 'team' is required"));
    }
  }

  private static PartialReport evaluation(Subject subject, long seconds, String who, int round) {
    return PartialReport.builder()
        .producer("background")
        .subject(subject)
        .results(
            List.of(
                Result.builder()
                    .source("kyverno")
                    .policy("require-labels")
                    .rule("check")
                    .status(ResultStatus.FAIL)
                    .message(who + " " + round)
                    .build()))
        .observedAt(Timestamp.ofSeconds(seconds))
        .build();
  }

  /** Every result message of Tally's PolicyReports in {@code ns}, sorted. */
  private static List<String> messages(KubernetesClient admin, String ns) {
    return aggregates(admin, ns).stream()
        .flatMap(r -> r.results().stream())
        .map(Result::message)
        .sorted()
        .toList();
  }

  /** The names of the subjects of every result in {@code ns}, sorted. */
  private static List<String> subjectsOf(KubernetesClient admin, String ns) {
    return aggregates(admin, ns).stream()
        .flatMap(r -> r.results().stream())
        .flatMap(r -> r.resources().stream())
        .map(Subject::name)
        .sorted()
        .toList();
  }

  private static List<AggregateReport> aggregates(KubernetesClient admin, String ns) {
    return admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems().stream()
        .map(ReportCodec::decode)
        .toList();
  }

  private static KubernetesClient viaProxy(Config config, ChaosProxy proxy) {
    Config through =
        new ConfigBuilder(config).withMasterUrl("https://127.0.0.1:" + proxy.port()).build();
    return new KubernetesClientBuilder().withConfig(through).build();
  }
}
