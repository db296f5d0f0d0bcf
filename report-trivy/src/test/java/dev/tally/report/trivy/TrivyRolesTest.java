package dev.tally.report.trivy;

import static dev.tally.report.fabric8.ShippedRoles.SCENARIO_SKEW;
import static dev.tally.report.fabric8.ShippedRoles.awaitReportsAbout;
import static dev.tally.report.fabric8.ShippedRoles.bindInNamespace;
import static dev.tally.report.fabric8.ShippedRoles.leaderElection;
import static dev.tally.report.fabric8.ShippedRoles.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.CountingMetrics;
import dev.tally.report.fabric8.RealServer;
import dev.tally.report.fabric8.ShippedRoles;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every rule of the trivy input's ClusterRoles ({@link TrivyInput#RBAC}; the chart holds a copy) is
 * used, and nothing beyond them is granted, on the real control plane (report-fabric8's {@link
 * ShippedRoles}, issue 19): trivy's aggregator runs as the ServiceAccount bound to them in both
 * formats, with update and with server-side apply, under leader election, with a rejection.
 */
@ExtendWith(RealKubernetes.class)
class TrivyRolesTest {
  @Test
  void everyRuleOfTrivysRolesIsUsedAndNothingBeyondThemIsGranted(RealKubernetes.Cluster cluster)
      throws Exception {
    ShippedRoles shipped = new ShippedRoles(cluster);
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    RealServer.installCrds(admin);
    TrivyInputRealServerTest.installTrivyCrd(admin);
    shipped.install(TrivyInput.rbacYaml());
    assertThat(shipped.roleNames())
        .containsExactlyInAnyOrder("tally-trivy-aggregator", "tally-trivy-aggregator-lease");
    KubernetesClient trivy =
        TrivyInputRealServerTest.reading(cluster.serviceAccount("trivy", "tally-trivy-aggregator"));
    bindInNamespace(admin, ns, "trivy", "tally-trivy-aggregator-lease");
    shipped.bind("trivy", "tally-trivy-aggregator", "tally-trivy-aggregator-lease");
    shipped.lease("trivy", "tally-trivy-aggregator");
    shipped.start();
    try {
      trivyAggregator(admin, ns, trivy);
    } finally {
      trivy.close();
    }
    shipped.verify();
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
}
