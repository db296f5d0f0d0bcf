package dev.tally.report.audit.worker;

import static dev.tally.report.fabric8.ShippedRoles.bindInNamespace;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.audit.UnitBackoff;
import dev.tally.report.fabric8.RealServer;
import dev.tally.report.fabric8.ShippedRoles;
import dev.tally.report.fabric8.ShippedRoles.Grant;
import dev.tally.report.fabric8.TallyResources;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
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
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every rule of the audit's ClusterRoles ({@code tally-audit-member} and {@code
 * tally-audit-coordination}, in report-fabric8's {@link TallyResources#RBAC}; deploy/ and the chart
 * hold copies) is used, and nothing beyond them is granted, on the real control plane
 * (report-fabric8's {@link ShippedRoles}, issue 19): an audit member runs as the ServiceAccount
 * bound to them (a run with a failed unit, old manifests and statuses, an orphaned Lease).
 */
@ExtendWith(RealKubernetes.class)
class AuditRolesTest {
  private ShippedRoles shipped;

  @Test
  void everyRuleOfTheAuditsRolesIsUsedAndNothingBeyondThemIsGranted(RealKubernetes.Cluster cluster)
      throws Exception {
    shipped = new ShippedRoles(cluster);
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    RealServer.installCrds(admin);
    shipped.install(
        TallyResources.rbacYaml(), Set.of("tally-audit-member", "tally-audit-coordination"));
    assertThat(shipped.roleNames())
        .containsExactlyInAnyOrder("tally-audit-member", "tally-audit-coordination");
    String reader = cluster.clusterRole("podtemplate-reader", RealAuditTest.READS_POD_TEMPLATES);
    KubernetesClient auditor = cluster.serviceAccount("audit", "tally-audit-member", reader);
    bindInNamespace(admin, ns, "audit", "tally-audit-coordination");
    shipped.bind("audit", "tally-audit-member", "tally-audit-coordination");

    // what earlier tests left in namespaces being deleted would be written to, and refused there
    RealServer.awaitOnlyOwnPartials(admin, ns);
    shipped.start();
    auditMember(admin, ns, auditor);
    shipped.verify();
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
                    ZonedDateTime.ofInstant(Instant.parse("2020-01-01T00:00:00Z"), ZoneOffset.UTC))
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
}
