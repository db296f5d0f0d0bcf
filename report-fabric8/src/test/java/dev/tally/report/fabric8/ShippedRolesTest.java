package dev.tally.report.fabric8;

import static dev.tally.report.fabric8.ShippedRoles.SCENARIO_SKEW;
import static dev.tally.report.fabric8.ShippedRoles.T0;
import static dev.tally.report.fabric8.ShippedRoles.awaitRejectedEvent;
import static dev.tally.report.fabric8.ShippedRoles.awaitReportsAbout;
import static dev.tally.report.fabric8.ShippedRoles.bindInNamespace;
import static dev.tally.report.fabric8.ShippedRoles.leaderElection;
import static dev.tally.report.fabric8.ShippedRoles.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.audit.UnitBackoff;
import dev.tally.report.fabric8.ShippedRoles.Grant;
import dev.tally.report.fabric8.audit.AuditMember;
import dev.tally.report.fabric8.audit.AuditTarget;
import dev.tally.report.fabric8.audit.RealAuditTest;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.trivy.TrivyInput;
import dev.tally.report.fabric8.trivy.TrivyInputRealServerTest;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every rule of the ClusterRoles this jar ships ({@link TallyResources#RBAC}, {@link
 * TrivyInput#RBAC}; deploy/ and the chart hold copies) is used, and nothing beyond them is granted,
 * on the real control plane ({@link ShippedRoles}, issue 19): the aggregator (both report formats,
 * update and server-side apply, leader election, a rejection), a producer (publish, update,
 * adoption that expires), trivy's aggregator (both formats, update and server-side apply, leader
 * election, a rejection) and an audit member (a run with a failed unit, old manifests and statuses,
 * an orphaned Lease) each run as the ServiceAccount bound to its roles.
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
    TrivyInputRealServerTest.installTrivyCrd(admin);
    shipped.install(TallyResources.rbacYaml());
    shipped.install(TrivyInput.rbacYaml());
    String reader = cluster.clusterRole("podtemplate-reader", RealAuditTest.READS_POD_TEMPLATES);
    assertThat(shipped.roleNames())
        .containsExactlyInAnyOrder(
            "tally-aggregator",
            "tally-aggregator-lease",
            "tally-producer",
            "tally-audit-member",
            "tally-audit-coordination",
            "tally-trivy-aggregator",
            "tally-trivy-aggregator-lease");

    // the accounts, bound as deploy/ and the READMEs bind them
    KubernetesClient aggregator = cluster.serviceAccount("aggregator", "tally-aggregator");
    bindInNamespace(admin, ns, "aggregator", "tally-aggregator-lease");
    KubernetesClient producer = cluster.serviceAccount("producer", "tally-producer");
    KubernetesClient trivy =
        TrivyInputRealServerTest.reading(cluster.serviceAccount("trivy", "tally-trivy-aggregator"));
    bindInNamespace(admin, ns, "trivy", "tally-trivy-aggregator-lease");
    KubernetesClient auditor = cluster.serviceAccount("audit", "tally-audit-member", reader);
    bindInNamespace(admin, ns, "audit", "tally-audit-coordination");
    shipped.bind("aggregator", "tally-aggregator", "tally-aggregator-lease");
    shipped.bind("producer", "tally-producer");
    shipped.bind("trivy", "tally-trivy-aggregator", "tally-trivy-aggregator-lease");
    shipped.bind("audit", "tally-audit-member", "tally-audit-coordination");
    shipped.lease("aggregator", "tally-aggregator");
    shipped.lease("trivy", "tally-trivy-aggregator");

    // what earlier tests left in namespaces being deleted would be written to, and refused there
    RealServer.awaitOnlyOwnPartials(admin, ns);
    shipped.start();
    try {
      mainAggregatorAndProducer(admin, ns, aggregator, producer);
      trivyAggregator(admin, ns, trivy);
      auditMember(admin, ns, auditor);
    } finally {
      trivy.close();
    }
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

  /**
   * trivy-operator's config audit reports aggregated in both formats, with update and with
   * server-side apply, under leader election: a scanned ConfigMap's report written, rescanned
   * (rewritten), rejected once (an Event), and deleted (its aggregate deleted). The cluster-scoped
   * aggregate kinds are only listed: a config audit report is namespaced.
   */
  private void trivyAggregator(KubernetesClient admin, String ns, KubernetesClient account)
      throws Exception {
    int run = 0;
    for (ReportFormat format : ReportFormat.values()) {
      for (boolean ssa : new boolean[] {false, true}) {
        run++;
        CountingMetrics metrics = new CountingMetrics();
        var scanned =
            admin
                .configMaps()
                .inNamespace(ns)
                .resource(
                    new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("trivy-scanned-" + run)
                        .endMetadata()
                        .build())
                .create();
        Subject subject =
            Subject.of(
                "v1",
                "ConfigMap",
                ns,
                scanned.getMetadata().getName(),
                scanned.getMetadata().getUid());
        String name = "configmap-trivy-scanned-" + run;
        var reports =
            admin.genericKubernetesResources(TrivyInput.CONFIG_AUDIT_REPORTS).inNamespace(ns);
        reports
            .resource(
                TrivyInputRealServerTest.report(
                    ns,
                    name,
                    scanned,
                    "2030-01-01T0" + run + ":00:00Z",
                    List.of(TrivyInputRealServerTest.check("KSV01010", "HIGH"))))
            .create();
        try (AggregatorController controller =
            AggregatorController.builder(account)
                .aggregator(
                    () ->
                        ReportAggregator.builder()
                            .grouping(Grouping.perSubject())
                            .format(format)
                            .input("trivy")
                            .build())
                .input(new TrivyInput())
                .flushWindow(Duration.ZERO)
                .maxClockSkew(SCENARIO_SKEW)
                .serverSideApply(ssa)
                .metrics(metrics)
                .leaderElection(
                    leaderElection(ns, "tally-trivy-aggregator", "trivy-replica-" + run))
                .build()
                .start()) {
          Await.until(
              "trivy run " + run + " leads and has rebuilt",
              () -> controller.isLeading() && controller.isRebuilt(),
              Duration.ofSeconds(60));
          List<ReportRef> refs = awaitReportsAbout(controller, admin, Set.of(subject));
          String verb = ssa ? "apply" : "update";
          int before = metrics.writes.getOrDefault(verb, 0);
          // the rescan finds another check failing
          String rescanned = "2030-01-01T0" + run + ":30:00Z";
          reports
              .withName(name)
              .edit(
                  r -> {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> report =
                        (Map<String, Object>) r.getAdditionalProperties().get("report");
                    report.put("updateTimestamp", rescanned);
                    report.put(
                        "checks", List.of(TrivyInputRealServerTest.check("KSV01011", "LOW")));
                    return r;
                  });
          Await.until(
              "trivy run " + run + " rewrote the aggregate",
              () -> metrics.writes.getOrDefault(verb, 0) >= before + 1);
          if (run == 1) {
            // a severity trivy's schema lets through: refused, with an Event
            var other =
                admin
                    .configMaps()
                    .inNamespace(ns)
                    .resource(
                        new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("trivy-refused")
                            .endMetadata()
                            .build())
                    .create();
            reports
                .resource(
                    TrivyInputRealServerTest.report(
                        ns,
                        "configmap-trivy-refused",
                        other,
                        "2030-01-01T00:00:00Z",
                        List.of(TrivyInputRealServerTest.check("KSV01010", "SEVERE"))))
                .create();
            TrivyInputRealServerTest.awaitRejection(admin, ns, "report.checks[0].severity");
            reports.withName("configmap-trivy-refused").delete();
          }
          // the report goes: so does its aggregate
          reports.withName(name).delete();
          Await.until(
              "trivy run " + run + " deleted the aggregate",
              () -> refs.stream().allMatch(r -> read(admin, r) == null),
              Duration.ofSeconds(60));
        } // close: releases the Lease with an update
      }
    }
  }

  /**
   * An audit member's run: it plans (old manifests and statuses of the group deleted, an orphaned
   * Lease deleted), audits PodTemplates and Namespaces (one object of each fails its evaluation, so
   * each unit turns stale and its reports are marked), updates reports it wrote before, and leaves
   * the group.
   */
  private void auditMember(KubernetesClient admin, String ns, KubernetesClient client)
      throws Exception {
    String group = "roles";
    for (String name : List.of("pt-0", "pt-1")) {
      admin
          .resource(
              new PodTemplateBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withNamespace(ns)
                  .endMetadata()
                  .withNewTemplate()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("c")
                  .withImage("registry.invalid/c:1")
                  .endContainer()
                  .endSpec()
                  .endTemplate()
                  .build())
          .create();
    }
    // what an earlier run left: a manifest, another member's status, an orphaned Lease
    admin
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("tally-audit-roles-run-1")
                .withNamespace(ns)
                .withLabels(
                    Map.of(WireNames.AUDIT_GROUP_LABEL, group, WireNames.AUDIT_EPOCH_LABEL, "1"))
                .endMetadata()
                .withData(Map.of("plan", "{}"))
                .build())
        .create();
    admin
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("tally-audit-roles-status-gone")
                .withNamespace(ns)
                .withLabels(
                    Map.of(
                        WireNames.AUDIT_GROUP_LABEL, group, WireNames.AUDIT_MEMBER_LABEL, "gone"))
                .endMetadata()
                .withData(Map.of("run", "old"))
                .build())
        .create();
    admin
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("tally-audit-roles-gone")
                .withNamespace(ns)
                .withLabels(Map.of(WireNames.AUDIT_GROUP_LABEL, group))
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("gone")
                .withLeaseDurationSeconds(3)
                .withRenewTime(
                    ZonedDateTime.ofInstant(
                        Instant.now().minus(Duration.ofDays(1)), ZoneOffset.UTC))
                .endSpec()
                .build())
        .create();
    String failing = ns; // its own namespace fails the evaluation: the Namespace unit turns stale
    CoverageKey policy = CoverageKey.of("tally-test", "require-team-label");
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(client).build()) {
      AuditMember member =
          AuditMember.builder(client)
              .group(group)
              .member("m-1")
              .namespace(ns)
              .targets(
                  List.of(
                      AuditTarget.namespaced("", "v1", "PodTemplate", "podtemplates"),
                      AuditTarget.clusterScoped("", "v1", "Namespace", "namespaces")))
              .policies(Set.of(policy))
              .evaluator(
                  object -> {
                    if (object.getMetadata().getName().equals(failing)
                        || object.getMetadata().getName().equals("pt-1")) {
                      throw new IllegalStateException("this object fails its evaluation");
                    }
                    return List.of(
                        Result.builder()
                            .source(policy.source())
                            .policy(policy.policy())
                            .rule("check")
                            .status(ResultStatus.PASS)
                            .message("ok")
                            .build());
                  })
              .publisher(publisher)
              .interval(Duration.ofHours(1))
              .leaseDuration(Duration.ofSeconds(3))
              .staleAfterAttempts(1)
              .unitBackoff(new UnitBackoff(Duration.ofMillis(100), Duration.ofMillis(500)))
              .build();
      // a report this member's producer wrote before, about each kind: the run updates them
      String producer = member.producer();
      var pt0 = admin.v1().podTemplates().inNamespace(ns).withName("pt-0").get();
      var own = admin.namespaces().withName(ns).get();
      for (Subject s :
          List.of(
              Subject.of("v1", "PodTemplate", ns, "pt-0", pt0.getMetadata().getUid()),
              Subject.of("v1", "Namespace", "", ns, own.getMetadata().getUid()))) {
        PartialReport earlier =
            PartialReport.builder()
                .producer(producer)
                .subject(s)
                .coverage(Set.of(policy))
                .results(List.of())
                .observedAt(Timestamp.ofSeconds(1_600_000_000L))
                .build();
        admin
            .resource(
                ReportCodec.encodePartial(earlier, PartialReportPublisher.objectName(producer, s)))
            .create();
      }
      try {
        member.start(executor, Duration.ofMillis(100));
        // two units fail and turn stale, so the run never completes: wait for what it does
        List<Grant> audit = new ArrayList<>(shipped.grants("tally-audit-member"));
        audit.addAll(shipped.grants("tally-audit-coordination"));
        shipped.awaitUsed("audit", audit);
      } finally {
        executor.shutdownNow();
        member.close(); // leaves: deletes its Lease
      }
      Await.until(
          "the member's Lease is gone",
          () -> admin.leases().inNamespace(ns).withName("tally-audit-roles-m-1").get() == null);
    } finally {
      // the Namespace unit published about every namespace: remove those reports (other tests
      // wait for no ClusterPartialReport to be left)
      for (var r : admin.resources(ClusterPartialReportResource.class).list().getItems()) {
        admin.resource(r).delete();
      }
      Await.until(
          "no ClusterPartialReport is left",
          () -> admin.resources(ClusterPartialReportResource.class).list().getItems().isEmpty());
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
