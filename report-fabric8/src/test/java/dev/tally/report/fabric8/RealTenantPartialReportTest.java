package dev.tally.report.fabric8;

import static dev.tally.report.fabric8.RealServer.installCrds;
import static dev.tally.report.fabric8.RealServer.results;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a tenant can do to another namespace's results through Tally's own input, on the real
 * control plane: nothing (docs/DESIGN.md, "Trust model"). The tenant is {@link RealServer#tenant}
 * (a namespace admin's rights over reports, in its own namespace only); the aggregator runs as its
 * shipped role. The Kyverno input's forgeries are report-kyverno's RealTenantTest's.
 */
@ExtendWith(RealKubernetes.class)
class RealTenantPartialReportTest {
  @Test
  void aTenantsPartialReportClaimingAUidDoesNotKeepAnotherNamespacesDeletedSubjectAlive(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    RealServer.installRbac(admin);
    KubernetesClient account = cluster.serviceAccount("aggregator", "tally-aggregator");
    String victimNs = cluster.namespace();
    String tenantNs = cluster.otherNamespace("a");
    KubernetesClient tenant = RealServer.tenant(cluster, tenantNs);
    RealServer.awaitOnlyOwnPartials(admin, victimNs);
    try (AggregatorController controller =
            RealServer.controllerOn(account).metrics(new CountingMetrics()).build().start();
        PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build()) {
      Await.until("the aggregator has rebuilt", controller::isRebuilt);
      Subject vault = RealServer.subject(admin, victimNs, "vault");
      RealServer.publishFailure(publisher, "admission", vault, "require-labels");
      Await.until("the victim's failure is reported", () -> results(admin, victimNs) == 1);

      // the tenant's partial report about a ghost of its own namespace with the victim's uid, and
      // no owner, so that nothing ever collects it
      Subject ghost = Subject.of("v1", "Pod", tenantNs, "ghost", vault.uid());
      PartialReport claim =
          PartialReport.builder()
              .producer("forger")
              .subject(ghost)
              .results(List.of(RealServer.fail("require-labels")))
              .observedAt(Timestamp.ofSeconds(1_700_000_000))
              .build();
      var object =
          ReportCodec.encodePartial(claim, PartialReportPublisher.objectName("forger", ghost));
      object.getMetadata().setNamespace(tenantNs);
      object.getMetadata().setOwnerReferences(List.of());
      tenant.resource(object).create();
      Await.until("the tenant's claim is reported", () -> results(admin, tenantNs) == 1);

      // the victim's Pod is deleted; the garbage collector removes its partial report
      admin.pods().inNamespace(victimNs).withName("vault").delete();
      Await.until(
          "the victim's report is deleted with its Pod",
          () -> results(admin, victimNs) == 0,
          Duration.ofSeconds(120));
      assertThat(results(admin, tenantNs)).as("the tenant's own claim stays its own").isEqualTo(1);
    }
  }
}
