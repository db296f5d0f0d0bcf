package dev.tally.report.kyverno;

import static dev.tally.report.fabric8.RealServer.auditEvents;
import static dev.tally.report.fabric8.RealServer.auditEventsOnceMarked;
import static dev.tally.report.fabric8.RealServer.auditMark;
import static dev.tally.report.fabric8.RealServer.installCrds;
import static dev.tally.report.fabric8.RealServer.results;
import static dev.tally.report.kyverno.RealKyvernoTest.backgroundReport;
import static dev.tally.report.kyverno.RealKyvernoTest.report;
import static dev.tally.report.kyverno.RealKyvernoTest.result;
import static dev.tally.report.kyverno.RealKyvernoTest.statuses;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.CountingMetrics;
import dev.tally.report.fabric8.MockCluster;
import dev.tally.report.fabric8.RealServer;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a tenant can do to another namespace's results through Tally, on the real control plane:
 * nothing. The tenant is a service account bound, in its own namespace only, to the rights a
 * namespace admin has over reports under Kyverno's default install (full control of
 * EphemeralReports, PolicyReports, Reports and Tally's PartialReports there); the aggregator runs
 * as its shipped role. Each test is a forgery the tenant can write with those rights, and the
 * assertion that the other namespace's report is untouched (docs/DESIGN.md, "Trust model").
 */
@ExtendWith(RealKubernetes.class)
class RealTenantTest {
  private static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  private static long now() {
    return Instant.now().getEpochSecond();
  }

  /** Kyverno mode as it runs beside Kyverno, re-listing every second. */
  private static AggregatorController kyvernoMode(KubernetesClient account) {
    return AggregatorController.builder(account)
        .aggregator(
            () -> ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build())
        .input(
            KyvernoInput.deleteAfterMerge()
                .withPolicyWatch(false)
                .withAdoptionRetry(Duration.ofMillis(200)))
        .flushWindow(Duration.ZERO)
        .resyncPeriod(Duration.ofSeconds(1))
        .metrics(new CountingMetrics())
        .build();
  }

  private static KubernetesClient kyvernoSetup(RealKubernetes.Cluster cluster) {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    RealKyvernoTest.installKyvernoCrds(admin);
    RealKyvernoTest.installKyvernoRole(admin);
    // an earlier test's namespaces may still be terminating: wait for their intermediate reports
    // to go, so that what each test's aggregator reads and writes is its own
    Await.until(
        "the intermediate reports of earlier tests are gone",
        () ->
            admin
                .genericKubernetesResources(KyvernoInput.EPHEMERAL)
                .inAnyNamespace()
                .list()
                .getItems()
                .isEmpty(),
        Duration.ofSeconds(180));
    return cluster.serviceAccount("aggregator", "tally-kyverno-aggregator");
  }

  /** The victim: a Pod of {@code ns} whose background scan failed {@code require-labels}. */
  private static Pod victimWithItsReport(KubernetesClient admin, String ns, long at) {
    Pod vault = MockCluster.pod(admin, ns, "vault");
    admin
        .resource(
            backgroundReport(
                ns,
                vault,
                at,
                Map.of("require-labels", List.of(result("require-labels", "check", "fail", at)))))
        .create();
    String uid = vault.getMetadata().getUid();
    Await.until(
        "the victim's report holds its failure",
        () ->
            report(admin, ns, uid)
                .map(r -> Map.of("require-labels/check", ResultStatus.FAIL).equals(statuses(r)))
                .orElse(false));
    RealKyvernoTest.awaitNoIntermediateReports(admin, ns);
    return vault;
  }

  @Test
  void aForgedUidInTheTenantsNamespaceNeitherRetractsNorFreezesAnotherNamespacesResource(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    KubernetesClient account = kyvernoSetup(cluster);
    String victimNs = cluster.namespace();
    String tenantNs = cluster.otherNamespace("a");
    KubernetesClient tenant = RealServer.tenant(cluster, tenantNs);
    try (AggregatorController controller = kyvernoMode(account).start()) {
      Await.until("the aggregator has rebuilt", controller::isRebuilt);
      long t = now();
      Pod vault = victimWithItsReport(admin, victimNs, t);
      String uid = vault.getMetadata().getUid();

      // the tenant's report about a "ghost" Pod of its own namespace, carrying the victim's uid.
      // Tally writes a report for it in the tenant's namespace, owned by (ghost, uid); the garbage
      // collector removes that report (no such owner there), and the next re-list asks whether
      // tenantNs/ghost is gone: it is.
      long mark = auditMark(cluster);
      tenant
          .resource(
              RealKyvernoTest.admissionReport(
                  tenantNs,
                  "forged",
                  "Pod",
                  "",
                  "v1",
                  "ghost",
                  uid,
                  t,
                  Map.of("require-labels", List.of(result("require-labels", "check", "pass", t)))))
          .create();
      String aggregator = "system:serviceaccount:" + victimNs + ":aggregator";
      Await.until(
          "the aggregator found the ghost gone",
          () ->
              auditEvents(cluster, mark).stream()
                  .anyMatch(
                      e ->
                          e.user().equals(aggregator)
                              && e.verb().equals("get")
                              && e.resource().equals("pods")
                              && e.namespace().equals(tenantNs)),
          Duration.ofSeconds(120));
      // a flush after that deletion has run
      controller.desired().get(60, java.util.concurrent.TimeUnit.SECONDS);

      assertThat(report(admin, victimNs, uid).map(RealKyvernoTest::statuses))
          .as("the victim's results are untouched by the tenant's forged uid")
          .contains(Map.of("require-labels/check", ResultStatus.FAIL));

      // and not frozen: the victim's next evaluation is merged
      admin
          .resource(
              backgroundReport(
                  victimNs,
                  vault,
                  t + 2,
                  Map.of(
                      "require-labels", List.of(result("require-labels", "check", "pass", t + 2)))))
          .create();
      Await.until(
          "the victim's fix is merged",
          () ->
              report(admin, victimNs, uid)
                  .map(r -> Map.of("require-labels/check", ResultStatus.PASS).equals(statuses(r)))
                  .orElse(false));
    }
  }

  @Test
  void aTenantsPolicyReportScopedToAnotherNamespaceDoesNotSeedItAtFailover(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    KubernetesClient account = kyvernoSetup(cluster);
    String victimNs = cluster.namespace();
    String tenantNs = cluster.otherNamespace("a");
    KubernetesClient tenant = RealServer.tenant(cluster, tenantNs);
    Pod vault;
    long t = now();
    try (AggregatorController controller = kyvernoMode(account).start()) {
      Await.until("the aggregator has rebuilt", controller::isRebuilt);
      vault = victimWithItsReport(admin, victimNs, t);
    }
    String uid = vault.getMetadata().getUid();

    // while no aggregator runs, the tenant writes a report in Kyverno's layout in its namespace,
    // scoped to the victim, with a far-future pass and a failure of its own making
    Map<String, Object> forged = new LinkedHashMap<>();
    forged.put("apiVersion", "wgpolicyk8s.io/v1alpha2");
    forged.put("kind", "PolicyReport");
    forged.put(
        "metadata",
        Map.of(
            "name",
            "forged",
            "namespace",
            tenantNs,
            "labels",
            Map.of("app.kubernetes.io/managed-by", "kyverno")));
    forged.put(
        "scope",
        Map.of(
            "apiVersion", "v1", "kind", "Pod", "namespace", victimNs, "name", "vault", "uid", uid));
    forged.put(
        "results",
        List.of(
            result("require-labels", "check", "pass", 253_402_300_000L),
            result("forged-policy", "check", "fail", 253_402_300_000L)));
    forged.put("summary", Map.of("pass", 1, "fail", 1));
    tenant
        .resource(
            Serialization.unmarshal(Serialization.asJson(forged), GenericKubernetesResource.class))
        .create();

    // the next term seeds from what the cluster holds
    try (AggregatorController controller = kyvernoMode(account).start()) {
      Await.until("the aggregator has rebuilt", controller::isRebuilt);
      controller.desired().get(60, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(report(admin, victimNs, uid).map(RealKyvernoTest::statuses))
          .as("the forged report seeded nothing into the victim's")
          .contains(Map.of("require-labels/check", ResultStatus.FAIL));
      // a real evaluation after the failover is merged as usual (two seconds after the one the
      // seed holds: within one second the seed, observed when it was read, would tie with it)
      long fixed = Math.max(now(), t + 2);
      admin
          .resource(
              backgroundReport(
                  victimNs,
                  vault,
                  fixed,
                  Map.of(
                      "require-labels", List.of(result("require-labels", "check", "pass", fixed)))))
          .create();
      Await.until(
          "the victim's fix is merged",
          () ->
              report(admin, victimNs, uid)
                  .map(r -> Map.of("require-labels/check", ResultStatus.PASS).equals(statuses(r)))
                  .orElse(false));
    }
  }

  @Test
  void anEvaluationFromTheFarFutureIsRefusedWithAnEventNamingTheField(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    KubernetesClient account = kyvernoSetup(cluster);
    String tenantNs = cluster.otherNamespace("a");
    KubernetesClient tenant = RealServer.tenant(cluster, tenantNs);
    try (AggregatorController controller = kyvernoMode(account).start()) {
      Await.until("the aggregator has rebuilt", controller::isRebuilt);
      Pod own = MockCluster.pod(tenant, tenantNs, "own");
      long year9999 = 253_402_300_000L;
      tenant
          .resource(
              backgroundReport(
                  tenantNs,
                  own,
                  now(),
                  Map.of(
                      "require-labels",
                      List.of(result("require-labels", "check", "pass", year9999)))))
          .create();
      Await.until(
          "a rejection Event names the result's timestamp",
          () ->
              admin.v1().events().inNamespace(tenantNs).list().getItems().stream()
                  .anyMatch(
                      e ->
                          e.getMessage() != null
                              && e.getMessage().contains("results[0].timestamp")
                              && e.getMessage().contains("clock skew")),
          Duration.ofSeconds(60));
      controller.desired().get(60, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(report(admin, tenantNs, own.getMetadata().getUid()))
          .as("nothing from the future is written")
          .isEmpty();
    }
  }

  @Test
  void withKyvernosReportsKeptAForgedUidDoesNotKeepAnotherNamespacesDeletedResourceAlive(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    KubernetesClient account = kyvernoSetup(cluster);
    String victimNs = cluster.namespace();
    String tenantNs = cluster.otherNamespace("a");
    KubernetesClient tenant = RealServer.tenant(cluster, tenantNs);
    // Kyverno's reports kept (they are the state), aggregated per namespace
    try (AggregatorController controller =
        AggregatorController.builder(account)
            .aggregator(
                () ->
                    ReportAggregator.builder()
                        .grouping(Grouping.perNamespace())
                        .input("kyverno")
                        .build())
            .input(KyvernoInput.keep().withPolicyWatch(false))
            .flushWindow(Duration.ZERO)
            .metrics(new CountingMetrics())
            .build()
            .start()) {
      Await.until("the aggregator has rebuilt", controller::isRebuilt);
      long t = now();
      Pod vault = MockCluster.pod(admin, victimNs, "vault");
      admin
          .resource(
              backgroundReport(
                  victimNs,
                  vault,
                  t,
                  Map.of("require-labels", List.of(result("require-labels", "check", "fail", t)))))
          .create();
      Await.until("the victim's failure is reported", () -> results(admin, victimNs) == 1);
      // the tenant's kept report claiming the victim's uid, with no owner: nothing collects it
      tenant
          .resource(
              RealKyvernoTest.admissionReport(
                  tenantNs,
                  "forged",
                  "Pod",
                  "",
                  "v1",
                  "ghost",
                  vault.getMetadata().getUid(),
                  t,
                  Map.of("require-labels", List.of(result("require-labels", "check", "fail", t)))))
          .create();
      Await.until("the tenant's claim is reported", () -> results(admin, tenantNs) == 1);

      // the victim's Pod goes, and with it (garbage collection) its background report
      admin.pods().inNamespace(victimNs).withName("vault").delete();
      Await.until(
          "the victim's results leave its namespace's report",
          () -> results(admin, victimNs) == 0,
          Duration.ofSeconds(120));
      assertThat(results(admin, tenantNs)).as("the tenant's own claim stays its own").isEqualTo(1);
      tenant.genericKubernetesResources(KyvernoInput.EPHEMERAL).inNamespace(tenantNs).delete();
    }
  }

  /**
   * A tenant's report about a subject that may not own objects (a core Event) would make a report
   * the API server refuses at every write (before: retried for as long as the process lived, 21
   * times in its first minute, while merged reports were deleted in no namespace). It is refused
   * when applied, with a Rejected Event naming the field; no write for it is ever tried; and the
   * victim's namespace is written and its intermediate reports deleted as usual.
   */
  @Test
  void aTenantsReportAboutASubjectThatCannotOwnItsReportIsRefusedAndNothingWaitsForIt(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    KubernetesClient account = kyvernoSetup(cluster);
    String victimNs = cluster.namespace();
    String tenantNs = cluster.otherNamespace("a");
    KubernetesClient tenant = RealServer.tenant(cluster, tenantNs);
    try (AggregatorController controller = kyvernoMode(account).start()) {
      Await.until("the aggregator has rebuilt", controller::isRebuilt);
      long mark = auditMark(cluster);
      long t = now();
      tenant
          .resource(
              RealKyvernoTest.admissionReport(
                  tenantNs,
                  "as-an-event",
                  "Event",
                  "",
                  "v1",
                  "web-0.17a",
                  "5b1c8f3e-1d2a-4c1e-9a57-3b2f8e1d0c44",
                  t,
                  Map.of("require-labels", List.of(result("require-labels", "check", "fail", t)))))
          .create();
      Await.until(
          "a Rejected event names the subject's kind",
          () ->
              admin.v1().events().inNamespace(tenantNs).list().getItems().stream()
                  .anyMatch(
                      e ->
                          "Rejected".equals(e.getReason())
                              && e.getMessage().contains("subject.kind")
                              && e.getMessage().contains("may not own objects")));

      // the victim's evaluation is written and its intermediate report deleted meanwhile
      victimWithItsReport(admin, victimNs, t);

      String aggregator = "system:serviceaccount:" + victimNs + ":aggregator";
      // none expected: read once the log holds a marker request made after everything above
      assertThat(auditEventsOnceMarked(cluster, mark))
          .as("no write of the tenant's namespace was tried for it")
          .noneMatch(
              e ->
                  e.user().equals(aggregator)
                      && e.namespace().equals(tenantNs)
                      && e.resource().equals("policyreports")
                      && !e.verb().equals("list")
                      && !e.verb().equals("watch"));
    }
  }

  /**
   * A namespace where the aggregator may not create reports (here a ResourceQuota allowing none:
   * every create is refused with 403, as in a namespace being deleted) holds back only itself: its
   * write backs off alone and its intermediate report is kept (the only record of what is not
   * written yet), while the victim's namespace is written and its intermediate reports deleted.
   * Once the quota goes, the write succeeds and the kept report is deleted in turn. Before, every
   * flush re-read the refused object first and returned, and no namespace's merged reports were
   * deleted until it healed.
   */
  @Test
  void aNamespaceWhoseWritesAreForbiddenHoldsBackOnlyItself(RealKubernetes.Cluster cluster)
      throws Exception {
    KubernetesClient admin = cluster.admin();
    KubernetesClient account = kyvernoSetup(cluster);
    String victimNs = cluster.namespace();
    String tenantNs = cluster.otherNamespace("a");
    admin
        .resource(
            new io.fabric8.kubernetes.api.model.ResourceQuotaBuilder()
                .withNewMetadata()
                .withName("no-reports")
                .withNamespace(tenantNs)
                .endMetadata()
                .withNewSpec()
                .addToHard(
                    "count/policyreports.wgpolicyk8s.io",
                    new io.fabric8.kubernetes.api.model.Quantity("0"))
                .endSpec()
                .build())
        .create();
    // kube-testenv runs no quota controller: the status it would compute is set here, so that the
    // admission plugin enforces the quota (0 used of 0 allowed)
    admin
        .resources(io.fabric8.kubernetes.api.model.ResourceQuota.class)
        .inNamespace(tenantNs)
        .withName("no-reports")
        .editStatus(
            q ->
                new io.fabric8.kubernetes.api.model.ResourceQuotaBuilder(q)
                    .withNewStatus()
                    .addToHard(
                        "count/policyreports.wgpolicyk8s.io",
                        new io.fabric8.kubernetes.api.model.Quantity("0"))
                    .addToUsed(
                        "count/policyreports.wgpolicyk8s.io",
                        new io.fabric8.kubernetes.api.model.Quantity("0"))
                    .endStatus()
                    .build());
    try (AggregatorController controller = kyvernoMode(account).start()) {
      Await.until("the aggregator has rebuilt", controller::isRebuilt);
      long t = now();
      long mark = auditMark(cluster);
      Pod web = MockCluster.pod(admin, tenantNs, "web");
      admin
          .resource(
              backgroundReport(
                  tenantNs,
                  web,
                  t,
                  Map.of("require-labels", List.of(result("require-labels", "check", "fail", t)))))
          .create();
      String aggregator = "system:serviceaccount:" + victimNs + ":aggregator";
      Await.until(
          "the create in the tenant's namespace was refused",
          () ->
              auditEvents(cluster, mark).stream()
                  .anyMatch(
                      e ->
                          e.user().equals(aggregator)
                              && e.verb().equals("create")
                              && e.resource().equals("policyreports")
                              && e.namespace().equals(tenantNs)
                              && e.code() == 403),
          Duration.ofSeconds(120));

      // the victim's namespace flows: its report written, its intermediate report deleted
      victimWithItsReport(admin, victimNs, t);
      assertThat(
              admin
                  .genericKubernetesResources(KyvernoInput.EPHEMERAL)
                  .inNamespace(tenantNs)
                  .list()
                  .getItems())
          .as("the refused namespace's intermediate report is kept: its content is not written")
          .hasSize(1);

      // it heals: the report is written after its backoff, and the intermediate report deleted
      admin
          .resources(io.fabric8.kubernetes.api.model.ResourceQuota.class)
          .inNamespace(tenantNs)
          .withName("no-reports")
          .delete();
      String uid = web.getMetadata().getUid();
      Await.until(
          "the tenant's report is written once the quota is gone",
          () ->
              report(admin, tenantNs, uid)
                  .map(r -> Map.of("require-labels/check", ResultStatus.FAIL).equals(statuses(r)))
                  .orElse(false),
          Duration.ofSeconds(120));
      RealKyvernoTest.awaitNoIntermediateReports(admin, tenantNs);
    }
  }
}
