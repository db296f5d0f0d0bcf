package dev.tally.report.fabric8;

import static dev.tally.report.fabric8.RealServer.auditEventsOnceLogged;
import static dev.tally.report.fabric8.RealServer.auditEventsOnceMarked;
import static dev.tally.report.fabric8.RealServer.auditMark;
import static dev.tally.report.fabric8.RealServer.controllerOn;
import static dev.tally.report.fabric8.RealServer.fail;
import static dev.tally.report.fabric8.RealServer.installCrds;
import static dev.tally.report.fabric8.RealServer.installRbac;
import static dev.tally.report.fabric8.RealServer.publishFailure;
import static dev.tally.report.fabric8.RealServer.requestsOnceLogged;
import static dev.tally.report.fabric8.RealServer.requestsOnceMarked;
import static dev.tally.report.fabric8.RealServer.results;
import static dev.tally.report.fabric8.RealServer.settle;
import static dev.tally.report.fabric8.RealServer.subject;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.testenv.AuditLog;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * API economy counted from the real API server's audit log, not from client-side counters: what one
 * admission event costs, what the aggregator writes when nothing changed, and what a full rebuild
 * costs at N subjects, cold (no aggregates yet) and on a restart (aggregates in place).
 */
@ExtendWith(RealKubernetes.class)
class RealServerEconomyTest {
  /** Subjects of the full-rebuild test. */
  static final int SUBJECTS = 400;

  /**
   * API economy, counted from the API server's audit log (not from client-side counters): the
   * writes one admission event costs (publish one partial report, aggregate, write), and the
   * aggregator's writes when the same evaluations are published again (none). Reads are counted
   * beside them in the failure message; a run that overlaps the controller's start-up LISTs shows
   * those too, which is why the bound is on writes.
   */
  @Test
  void oneAdmissionEventCostsTwoWritesAndAnUnchangedOneNoAggregateWrite(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installRbac(admin);
    String ns = cluster.namespace();
    RealServer.awaitOnlyOwnPartials(admin, ns); // another test's leftovers would add requests
    KubernetesClient producer = cluster.serviceAccount("producer", "tally-producer");
    KubernetesClient aggregatorAccount = cluster.serviceAccount("aggregator", "tally-aggregator");
    Subject warmUp = subject(admin, ns, "warm-up");
    Subject admitted = subject(admin, ns, "admitted");
    CountingMetrics metrics = new CountingMetrics();
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(producer).build();
        AggregatorController controller =
            controllerOn(aggregatorAccount)
                .flushWindow(Duration.ZERO)
                .metrics(metrics)
                .build()
                .start()) {
      publishFailure(publisher, "admission", warmUp, "require-labels");
      Await.until("the warm-up is aggregated", () -> results(admin, ns) == 1);
      settle(controller, metrics, 1);

      long mark = auditMark(cluster);
      publishFailure(publisher, "admission", admitted, "require-labels");
      settle(controller, metrics, 2);
      Await.until("the admission event is aggregated", () -> results(admin, ns) == 2);
      var perEvent = requestsOnceLogged(cluster, mark, ns, Map.of("producer", 1, "aggregator", 1));
      assertThat(perEvent.get("producer")).as("producer writes: %s", perEvent).isEqualTo(1);
      assertThat(perEvent.get("aggregator")).as("aggregator writes: %s", perEvent).isEqualTo(1);

      long steady = auditMark(cluster);
      publisher
          .publish(
              PartialReport.builder()
                  .producer("admission")
                  .subject(admitted)
                  .results(List.of(fail("require-labels")))
                  .observedAt(Timestamp.ofSeconds(1_700_000_060))
                  .build())
          .get(120, java.util.concurrent.TimeUnit.SECONDS);
      settle(controller, metrics, 3);
      // none expected: read once the log holds a marker made after the flush
      var unchanged = requestsOnceMarked(cluster, steady, ns);
      assertThat(unchanged.get("aggregator")).as("aggregator writes: %s", unchanged).isZero();
    }
  }

  /**
   * A full rebuild at {@value #SUBJECTS} subjects: the aggregator's start-up reads are a handful of
   * LISTs whatever N is (the informers' and the owned aggregates'), a cold start writes each
   * aggregate once, and a restart against aggregates already in place writes none. The figures are
   * printed for the README.
   */
  @Test
  void aFullRebuildReadsAFewListsWritesEachAggregateOnceAndARestartWritesNothing(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installRbac(admin);
    String ns = cluster.namespace();
    RealServer.awaitOnlyOwnPartials(admin, ns); // another test's leftovers would add requests
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    try (PartialReportPublisher publisher =
        PartialReportPublisher.builder(admin).budget(ApiBudget.of(500, 500)).build()) {
      for (int i = 0; i < SUBJECTS; i++) {
        Subject subject = subject(admin, ns, "pod-" + i);
        writes.add(
            publisher.publish(
                PartialReport.builder()
                    .producer("background")
                    .subject(subject)
                    .results(List.of(fail("require-labels")))
                    .observedAt(Timestamp.ofSeconds(1_700_000_000))
                    .build()));
      }
      CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(300, TimeUnit.SECONDS);
    }
    KubernetesClient account = cluster.serviceAccount("aggregator", "tally-aggregator");
    String user = "system:serviceaccount:" + ns + ":aggregator";

    long cold = auditMark(cluster);
    try (AggregatorController controller = controllerOn(account).build().start()) {
      Await.until("every subject is aggregated", () -> results(admin, ns) == SUBJECTS);
      controller.desired().get(60, TimeUnit.SECONDS);
    }
    int aggregates =
        admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems().size();
    // read once the log holds each aggregate's write and the informer's LIST (the counts
    // expected), and a marker made after them (the per-subject reads expected to be none)
    Map<String, Integer> coldCounts =
        byVerbAndResource(
            auditEventsOnceLogged(
                cluster,
                cold,
                events -> {
                  Map<String, Integer> counts = byVerbAndResource(events, user, ns);
                  return writesIn(counts, "policyreports") >= aggregates
                      && counts.getOrDefault("list partialreports", 0) >= 1;
                }),
            user,
            ns);

    long restart = auditMark(cluster);
    try (AggregatorController controller = controllerOn(account).build().start()) {
      controller.desired().get(60, TimeUnit.SECONDS);
      controller.resyncNow().get(60, TimeUnit.SECONDS);
    }
    // no write expected: read once the log holds a marker made after the resync
    Map<String, Integer> restartCounts =
        byVerbAndResource(auditEventsOnceMarked(cluster, restart), user, ns);
    System.out.printf(
        "full rebuild at %d subjects, requests by the aggregator (audit log):%n  cold:    %s%n"
            + "  restart: %s%n",
        SUBJECTS, coldCounts, restartCounts);

    assertThat(writesIn(coldCounts, "policyreports"))
        .as("a cold rebuild writes each aggregate once: %s", coldCounts)
        .isEqualTo(aggregates);
    assertThat(writesIn(restartCounts, "policyreports"))
        .as("a restart writes no aggregate: %s", restartCounts)
        .isZero();
    assertThat(coldCounts.getOrDefault("list partialreports", 0))
        .as("the informer lists partial reports once, not once per subject: %s", coldCounts)
        .isBetween(1, 2);
    assertThat(coldCounts.getOrDefault("get partialreports", 0))
        .as("no per-subject reads: %s", coldCounts)
        .isZero();
  }

  /**
   * {@code user}'s completed requests among {@code events}, by "verb resource"; writes count only
   * in the test's namespace (the informers see the whole cluster, so other tests' partial reports
   * may be aggregated meanwhile), reads everywhere.
   */
  private static Map<String, Integer> byVerbAndResource(
      List<AuditLog.Event> events, String user, String ns) {
    Map<String, Integer> counts = new TreeMap<>();
    for (AuditLog.Event e : events) {
      boolean read = e.verb().equals("list") || e.verb().equals("get");
      if (e.user().equals(user) && (read || e.namespace().equals(ns))) {
        counts.merge(e.verb() + " " + e.resource(), 1, Integer::sum);
      }
    }
    return counts;
  }

  private static int writesIn(Map<String, Integer> counts, String resource) {
    int n = 0;
    for (String verb : List.of("create", "update", "patch", "delete")) {
      n += counts.getOrDefault(verb + " " + resource, 0);
    }
    return n;
  }
}
