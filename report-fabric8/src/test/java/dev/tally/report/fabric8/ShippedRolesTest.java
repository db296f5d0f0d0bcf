package dev.tally.report.fabric8;

import static dev.tally.report.fabric8.ShippedRoles.SCENARIO_SKEW;
import static dev.tally.report.fabric8.ShippedRoles.T0;
import static dev.tally.report.fabric8.ShippedRoles.awaitRejectedEvent;
import static dev.tally.report.fabric8.ShippedRoles.awaitReportsAbout;
import static dev.tally.report.fabric8.ShippedRoles.bindInNamespace;
import static dev.tally.report.fabric8.ShippedRoles.leaderElection;
import static dev.tally.report.fabric8.ShippedRoles.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every rule of the ClusterRoles of this jar's aggregator and producer ({@link
 * TallyResources#RBAC}; deploy/ and the chart hold copies) is used, and nothing beyond them is
 * granted, on the real control plane ({@link ShippedRoles}, issue 19): the aggregator (both report
 * formats, update and server-side apply, leader election, a rejection) and a producer (publish,
 * update, adoption that expires) each run as the ServiceAccount bound to its roles. The audit's
 * roles, in the same file, are report-audit-worker's AuditRolesTest's.
 */
@ExtendWith(RealKubernetes.class)
class ShippedRolesTest {
  private ShippedRoles shipped;

  @Test
  void everyRuleOfEveryRoleOfThisJarIsUsedAndNothingBeyondThemIsGranted(
      RealKubernetes.Cluster cluster) throws Exception {
    shipped = new ShippedRoles(cluster);
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    RealServer.installCrds(admin);
    // the audit's two roles are report-audit-worker's to check (AuditRolesTest)
    shipped.install(
        TallyResources.rbacYaml(),
        Set.of("tally-aggregator", "tally-aggregator-lease", "tally-producer"));
    assertThat(shipped.roleNames())
        .containsExactlyInAnyOrder("tally-aggregator", "tally-aggregator-lease", "tally-producer");

    // the accounts, bound as deploy/ and the READMEs bind them
    KubernetesClient aggregator = cluster.serviceAccount("aggregator", "tally-aggregator");
    bindInNamespace(admin, ns, "aggregator", "tally-aggregator-lease");
    KubernetesClient producer = cluster.serviceAccount("producer", "tally-producer");
    shipped.bind("aggregator", "tally-aggregator", "tally-aggregator-lease");
    shipped.bind("producer", "tally-producer");
    shipped.lease("aggregator", "tally-aggregator");

    // what earlier tests left in namespaces being deleted would be written to, and refused there
    RealServer.awaitOnlyOwnPartials(admin, ns);
    shipped.start();
    mainAggregatorAndProducer(admin, ns, aggregator, producer);
    shipped.verify();
  }

  // ---------------------------------------------------------------------------- the components

  /**
   * The aggregator in both formats, with update and with server-side apply, each a leader that
   * creates, updates and deletes a namespaced and a cluster-scoped aggregate and releases its
   * Lease; a producer publishes, updates, and has two unadopted reports expire.
   */
  private void mainAggregatorAndProducer(
      KubernetesClient admin, String ns, KubernetesClient aggregator, KubernetesClient producer)
      throws Exception {
    String nsUid = admin.namespaces().withName(ns).get().getMetadata().getUid();
    Subject namespace = Subject.of("v1", "Namespace", "", ns, nsUid);
    int run = 0;
    try (PartialReportPublisher publisher =
        PartialReportPublisher.builder(producer)
            .adoptionGrace(Duration.ofMillis(1))
            .subjectResolver(subject -> Optional.empty()) // the producer role reads no subjects
            .build()) {
      for (ReportFormat format : ReportFormat.values()) {
        for (boolean ssa : new boolean[] {false, true}) {
          run++;
          CountingMetrics metrics = new CountingMetrics();
          Subject pod = RealServer.subject(admin, ns, "main-" + run);
          try (AggregatorController controller =
              AggregatorController.builder(aggregator)
                  .aggregator(
                      () ->
                          ReportAggregator.builder()
                              .grouping(Grouping.perSubject())
                              .format(format)
                              .build())
                  .flushWindow(Duration.ZERO)
                  .maxClockSkew(SCENARIO_SKEW)
                  .maxClockSkew(SCENARIO_SKEW)
                  .serverSideApply(ssa)
                  .metrics(metrics)
                  .leaderElection(leaderElection(ns, "tally-aggregator", "replica-" + run))
                  .build()
                  .start()) {
            Await.until(
                "run " + run + " leads and has rebuilt",
                () -> controller.isLeading() && controller.isRebuilt(),
                Duration.ofSeconds(60));
            publish(publisher, "scanner", pod, ResultStatus.FAIL, T0 + run * 10L);
            publish(publisher, "scanner", namespace, ResultStatus.FAIL, T0 + run * 10L);
            List<ReportRef> refs = awaitReportsAbout(controller, admin, Set.of(pod, namespace));
            String verb = ssa ? "apply" : "update";
            int before = metrics.writes.getOrDefault(verb, 0);
            publish(publisher, "scanner", pod, ResultStatus.PASS, T0 + run * 10L + 1);
            publish(publisher, "scanner", namespace, ResultStatus.PASS, T0 + run * 10L + 1);
            Await.until(
                "run " + run + " rewrote both aggregates",
                () -> metrics.writes.getOrDefault(verb, 0) >= before + 2);
            if (run == 1) {
              rejectedPartialReport(admin, ns);
            }
            // the subjects' evaluations go: so do their aggregates
            deletePartials(admin, ns, "scanner");
            Await.until(
                "run " + run + " deleted both aggregates",
                () -> refs.stream().allMatch(r -> read(admin, r) == null),
                Duration.ofSeconds(60));
          } // close: releases the Lease with an update
        }
      }
      // a report the producer wrote before this publisher's time: created again, it reads it
      Subject web = RealServer.subject(admin, ns, "web");
      PartialReport earlier =
          PartialReport.builder()
              .producer("webhook")
              .subject(web)
              .results(List.of(RealServer.fail("require-labels")))
              .observedAt(Timestamp.ofSeconds(T0 - 100))
              .build();
      admin
          .resource(
              ReportCodec.encodePartial(earlier, PartialReportPublisher.objectName("webhook", web)))
          .create();
      publish(publisher, "webhook", web, ResultStatus.PASS, T0);
      // a producer's reports whose subjects never appear: adoption lists and deletes them
      publish(
          publisher, "webhook", Subject.of("v1", "Pod", ns, "never", ""), ResultStatus.FAIL, T0);
      publish(
          publisher,
          "webhook",
          Subject.of("v1", "Namespace", "", "never-" + ns, ""),
          ResultStatus.FAIL,
          T0);
      int[] removed = {0};
      Await.until(
          "adoption removed both unadopted reports",
          () -> (removed[0] += publisher.adoptPending().removed()) >= 2);
    }
  }

  // ------------------------------------------------------------------------------------ helpers

  /** A partial report in {@code ns} about a subject in another namespace: an Event. */
  private static void rejectedPartialReport(KubernetesClient admin, String ns) {
    PartialReport elsewhere =
        PartialReport.builder()
            .producer("intruder")
            .subject(Subject.of("v1", "Pod", "elsewhere", "web", "0000-elsewhere"))
            .results(List.of(RealServer.fail("require-labels")))
            .observedAt(Timestamp.ofSeconds(T0))
            .build();
    var resource = ReportCodec.encodePartial(elsewhere, "intruder-web");
    resource.getMetadata().setNamespace(ns);
    admin.resource(resource).create();
    awaitRejectedEvent(admin, ns, "intruder-web");
    admin.resource(resource).delete();
  }

  private static void publish(
      PartialReportPublisher publisher,
      String producer,
      Subject subject,
      ResultStatus status,
      long seconds)
      throws Exception {
    publisher
        .publish(
            PartialReport.builder()
                .producer(producer)
                .subject(subject)
                .results(
                    List.of(
                        Result.builder()
                            .source("kyverno")
                            .policy("require-labels")
                            .rule("check")
                            .status(status)
                            .message("label 'team'")
                            .build()))
                .observedAt(Timestamp.ofSeconds(seconds))
                .build())
        .get(120, TimeUnit.SECONDS);
  }

  private static void deletePartials(KubernetesClient admin, String ns, String producer) {
    for (var r : admin.resources(PartialReportResource.class).inNamespace(ns).list().getItems()) {
      if (ReportCodec.decodePartial(r).producer().equals(producer)) {
        admin.resource(r).delete();
      }
    }
    for (var r : admin.resources(ClusterPartialReportResource.class).list().getItems()) {
      if (ReportCodec.decodePartial(r).producer().equals(producer)) {
        admin.resource(r).delete();
      }
    }
  }
}
