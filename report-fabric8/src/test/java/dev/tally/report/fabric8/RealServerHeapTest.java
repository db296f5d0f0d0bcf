package dev.tally.report.fabric8;

import static dev.tally.report.fabric8.RealServer.controllerOn;
import static dev.tally.report.fabric8.RealServer.installCrds;
import static dev.tally.report.fabric8.RealServer.subject;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the informer cache of partial reports at their largest costs the aggregator's heap, measured
 * against the real server: partial reports of about 1.3 MB of JSON each (etcd's request limit is
 * 1.5 MiB), each with distinct messages (nothing for the JVM to share), held by a running
 * controller. The retained heap is printed, and {@value #SIZED_FOR} of them must fit half the
 * Deployment's heap, leaving the rest for the aggregates and the requests in flight (the chart's
 * {@code resources} and {@code jvm.maxRamPercentage}, charts/tally-aggregator/values.yaml).
 *
 * <p>{@code verify} holds {@value #DEFAULT_REPORTS} (a few seconds of etcd writes) and scales the
 * retained heap per report to {@value #SIZED_FOR}; {@code -Dtally.heap.reports=100} holds them all
 * (about 11 minutes on a 2-core machine; 256 MiB retained, 2.6 MiB each, when last run).
 */
@ExtendWith(RealKubernetes.class)
class RealServerHeapTest {
  static final int DEFAULT_REPORTS = 8;
  static final int SIZED_FOR = 100;
  static final int REPORTS = Integer.getInteger("tally.heap.reports", DEFAULT_REPORTS);
  static final int RESULTS = 4_000;

  /** The Deployment's heap: MaxRAMPercentage 75 of its memory limit (1Gi). */
  static final long DEPLOYMENT_HEAP = 1024L * 1024 * 1024 * 75 / 100;

  private static long usedAfterGc() {
    var memory = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc(); // a full, synchronous collection with the JVM's default collector
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  private static PartialReport large(Subject subject, int n) {
    List<Result> results = new ArrayList<>(RESULTS);
    for (int i = 0; i < RESULTS; i++) {
      results.add(
          Result.builder()
              .source("kyverno")
              .policy("policy-" + (i % 40))
              .rule("rule-" + i)
              .status(ResultStatus.FAIL)
              .message("validation error: report " + n + " result " + i + " " + "x".repeat(200))
              .build());
    }
    return PartialReport.builder()
        .producer("scanner")
        .subject(subject)
        .results(results)
        .observedAt(Timestamp.ofSeconds(1_700_000_000))
        .build();
  }

  @Test
  void theInformerCacheOfTheLargestPartialReportsFitsTheDeploymentsHeap(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build()) {
      List<CompletableFuture<Void>> writes = new ArrayList<>();
      for (int n = 0; n < REPORTS; n++) {
        writes.add(publisher.publish(large(subject(admin, ns, "big-" + n), n)));
      }
      CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
    }
    PartialReportResource one =
        admin.resources(PartialReportResource.class).inNamespace(ns).list().getItems().get(0);
    int bytes = Serialization.asJson(one).length();
    assertThat(bytes).as("one partial report's JSON").isBetween(1_200_000, 1_500_000);

    long before = usedAfterGc();
    CountingMetrics metrics = new CountingMetrics();
    try (AggregatorController controller =
        controllerOn(admin).metrics(metrics).syncTimeout(Duration.ofMinutes(5)).build().start()) {
      Await.until("rebuilt", controller::isRebuilt, Duration.ofMinutes(10));
      Await.until(
          "every partial report applied", () -> metrics.applied >= REPORTS, Duration.ofMinutes(5));
      controller.flushNow().get(600, TimeUnit.SECONDS);
      long retained = usedAfterGc() - before;
      long perReport = retained / REPORTS;
      System.out.printf(
          "RealServerHeapTest: %d partial reports of %d bytes of JSON each: %d MiB retained by a"
              + " running controller (%d KiB each; %d MiB for %d); the Deployment's heap is %d MiB%n",
          REPORTS,
          bytes,
          retained >> 20,
          perReport >> 10,
          (perReport * SIZED_FOR) >> 20,
          SIZED_FOR,
          DEPLOYMENT_HEAP >> 20);
      assertThat(perReport * SIZED_FOR)
          .as("retained heap of " + SIZED_FOR + " such reports")
          .isLessThan(DEPLOYMENT_HEAP / 2);
    } finally {
      // one by one: a DELETE of the collection takes longer than a request may
      for (var p : admin.resources(PartialReportResource.class).inNamespace(ns).list().getItems()) {
        admin
            .resources(PartialReportResource.class)
            .inNamespace(ns)
            .withName(p.getMetadata().getName())
            .delete();
      }
    }
  }
}
