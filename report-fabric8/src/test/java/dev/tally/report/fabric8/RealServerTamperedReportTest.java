package dev.tally.report.fabric8;

import static dev.tally.report.fabric8.RealServer.controllerOn;
import static dev.tally.report.fabric8.RealServer.installCrds;
import static dev.tally.report.fabric8.RealServer.publishFailure;
import static dev.tally.report.fabric8.RealServer.results;
import static dev.tally.report.fabric8.RealServer.subject;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.resource.WireResult;
import dev.tally.report.fabric8.resource.WireSummary;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A tenant with a Kyverno namespace admin's rights over reports ({@link RealServer#tenant}) edits a
 * result of the aggregate Tally wrote in its namespace and keeps the {@code tally.dev/content-hash}
 * annotation, so that the annotation claims content the object no longer holds. The next resync
 * compares what the object holds, not what it claims, and writes the aggregate back (docs/DESIGN.md
 * §12, "What a tenant can affect").
 */
@ExtendWith(RealKubernetes.class)
class RealServerTamperedReportTest {

  @Test
  void aResultATenantEditedUnderTheKeptContentHashIsRestoredByTheNextResync(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    Subject subject = subject(admin, ns, "web-0");
    KubernetesClient tenant = RealServer.tenant(cluster, ns);
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build();
        AggregatorController controller = controllerOn(admin).build().start()) {
      publishFailure(publisher, "background", subject, "require-labels");
      Await.until("the aggregate is written", () -> results(admin, ns) == 1);
      AggregateReport written = onlyReport(admin, ns);
      assertThat(written.results().get(0).status()).isEqualTo(ResultStatus.FAIL);

      // the tenant may not touch reports of another namespace
      var elsewhere =
          catchThrowableOfType(
              () -> tenant.resources(PolicyReportResource.class).inNamespace("default").list(),
              KubernetesClientException.class);
      assertThat(elsewhere.getCode()).isEqualTo(403);

      // in its own it turns the failure into a pass, keeping every annotation
      PolicyReportResource mine =
          tenant.resources(PolicyReportResource.class).inNamespace(ns).list().getItems().get(0);
      WireResult r = mine.getResults().get(0);
      mine.setResults(
          List.of(
              new WireResult(
                  r.source(),
                  r.policy(),
                  r.rule(),
                  "pass",
                  r.severity(),
                  r.category(),
                  r.message(),
                  r.scored(),
                  r.properties(),
                  r.timestamp(),
                  r.resources(),
                  r.resourceSelector())));
      mine.setSummary(new WireSummary(1L, 0L, 0L, 0L, 0L));
      tenant.resource(mine).update();
      AggregateReport tampered = onlyReport(admin, ns);
      assertThat(tampered.results().get(0).status()).isEqualTo(ResultStatus.PASS);
      assertThat(tampered.contentHash()).isEqualTo(written.contentHash());
      assertThat(
              admin
                  .resources(PolicyReportResource.class)
                  .inNamespace(ns)
                  .withName(written.ref().name())
                  .get()
                  .getMetadata()
                  .getAnnotations())
          .containsEntry(WireNames.CONTENT_HASH_ANNOTATION, written.contentHash());

      controller.resyncNow().get(60, TimeUnit.SECONDS);

      assertThat(onlyReport(admin, ns)).isEqualTo(written);
    }
  }

  private static AggregateReport onlyReport(KubernetesClient admin, String ns) {
    List<PolicyReportResource> items =
        admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems();
    assertThat(items).hasSize(1);
    return ReportCodec.decode(items.get(0));
  }
}
