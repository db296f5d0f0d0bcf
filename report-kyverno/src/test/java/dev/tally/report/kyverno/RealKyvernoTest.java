package dev.tally.report.kyverno;

import static dev.tally.report.fabric8.RealServer.auditMark;
import static dev.tally.report.fabric8.RealServer.installCrds;
import static dev.tally.report.fabric8.RealServer.requestsOnceLogged;
import static dev.tally.report.fabric8.RealServer.requestsOnceMarked;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.CountingMetrics;
import dev.tally.report.fabric8.MockCluster;
import dev.tally.report.fabric8.TestResources;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tally in place of Kyverno's reports controller, on the real control plane: a scenario scripted as
 * Kyverno writes its intermediate reports (labels, annotations, owners and results as Kyverno's
 * code sets them; see the samples' README), driving an aggregator that runs as a service account
 * bound only to the shipped {@code tally-kyverno-aggregator} role. After every step it asserts the
 * per-resource reports in Kyverno's layout, that no intermediate report is left in etcd, and what
 * the aggregator's requests were, from the API server's audit log.
 */
@ExtendWith(RealKubernetes.class)
public class RealKyvernoTest {
  static final List<String> KYVERNO_CRDS =
      List.of(
          "reports.kyverno.io_ephemeralreports.v1.yaml",
          "reports.kyverno.io_clusterephemeralreports.v1.yaml");

  /**
   * The scenario's evaluation times, in 2030: later than any report's creation time, so that the
   * results' own times order the evaluations (observedAt is the latest of both) and two reports
   * created within one second of each other still have the order the script gives them.
   */
  private static final long T0 = 1_900_000_000L;

  /** The scenario's times are in 2030: the aggregator accepts them (the clock rule). */
  private static final Duration SCENARIO_SKEW = Duration.ofDays(36_500);

  @Test
  void tallyAggregatesKyvernosIntermediateReportsIntoKyvernosLayoutAndLeavesNoStaleResults(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installKyvernoCrds(admin);
    installKyvernoRole(admin);
    String ns = cluster.namespace();
    KubernetesClient account = cluster.serviceAccount("aggregator", "tally-kyverno-aggregator");
    CountingMetrics metrics = new CountingMetrics();
    List<String> steps = new ArrayList<>();
    // Kyverno's policies, as stand-in CRDs (not Kyverno's own): results of a policy that exists
    // are shown, and leave when it is deleted
    KyvernoPolicyWatchRealServerTest.installAndAwaitServed(admin);
    try {
      KyvernoPolicyWatchTest.create(admin, KyvernoPolicyWatchTest.clusterPolicy("require-labels"));
      KyvernoPolicyWatchTest.create(
          admin, KyvernoPolicyWatchTest.clusterPolicy("disallow-latest-tag"));
      scenario(cluster, admin, ns, account, metrics, steps);
    } finally {
      KyvernoPolicyWatchRealServerTest.uninstall(admin);
    }
    System.out.println(
        "Kyverno scenario, aggregator requests (audit log):\n  " + String.join("\n  ", steps));
  }

  private void scenario(
      RealKubernetes.Cluster cluster,
      KubernetesClient admin,
      String ns,
      KubernetesClient account,
      CountingMetrics metrics,
      List<String> steps)
      throws Exception {

    try (AggregatorController controller = kyvernoController(account, metrics).start()) {
      Await.until("the aggregator has rebuilt", controller::isRebuilt);

      // 1. admission of a Pod being created: the report names it without a uid (no owner yet)
      long mark = auditMark(cluster);
      admin
          .resource(
              admissionReport(
                  ns,
                  "req-1",
                  "Pod",
                  "",
                  "v1",
                  "web",
                  null,
                  T0,
                  Map.of(
                      "require-labels",
                      List.of(
                          result("require-labels", "check-team", "fail", T0),
                          result("require-labels", "check-owner", "fail", T0)))))
          .create();
      Pod web = MockCluster.pod(admin, ns, "web");
      String webUid = web.getMetadata().getUid();
      Await.until("the pod's report is written", () -> report(admin, ns, webUid).isPresent());
      awaitNoIntermediateReports(admin, ns);
      AggregateReport webReport = report(admin, ns, webUid).orElseThrow();
      assertThat(webReport.labels())
          .as("Kyverno's layout: one label")
          .isEqualTo(Map.of(WireNames.MANAGED_BY_LABEL, "kyverno"));
      assertThat(webReport.scope().orElseThrow().uid()).isEqualTo(webUid);
      assertThat(webReport.owner().orElseThrow().uid()).isEqualTo(webUid);
      assertThat(statuses(webReport))
          .containsExactly(
              Map.entry("require-labels/check-owner", ResultStatus.FAIL),
              Map.entry("require-labels/check-team", ResultStatus.FAIL));
      steps.add("admission (create, adopted): " + writes(cluster, mark, ns));

      // 2. a Deployment admitted with its uid known (an update), passing
      Deployment api =
          admin
              .resource(
                  new DeploymentBuilder()
                      .withNewMetadata()
                      .withName("api")
                      .withNamespace(ns)
                      .endMetadata()
                      .withNewSpec()
                      .withNewSelector()
                      .addToMatchLabels("app", "api")
                      .endSelector()
                      .withNewTemplate()
                      .withNewMetadata()
                      .addToLabels("app", "api")
                      .endMetadata()
                      .withNewSpec()
                      .addNewContainer()
                      .withName("api")
                      .withImage("registry.example/api:1.0")
                      .endContainer()
                      .endSpec()
                      .endTemplate()
                      .endSpec()
                      .build())
              .create();
      String apiUid = api.getMetadata().getUid();
      mark = auditMark(cluster);
      admin
          .resource(
              admissionReport(
                  ns,
                  "req-2",
                  "Deployment",
                  "apps",
                  "v1",
                  "api",
                  apiUid,
                  T0 + 5,
                  Map.of(
                      "disallow-latest-tag",
                      List.of(result("disallow-latest-tag", "autogen-check-tag", "pass", T0 + 5)))))
          .create();
      Await.until(
          "the deployment's report is written", () -> report(admin, ns, apiUid).isPresent());
      awaitNoIntermediateReports(admin, ns);
      var perEvent = requestsOnceLogged(cluster, mark, ns, Map.of("aggregator", 2));
      assertThat(perEvent.get("aggregator"))
          .as("an admission event that changes a report: one write and one delete, %s", perEvent)
          .isEqualTo(2);
      steps.add("admission (update, changed): " + perEvent);

      // 3. the same evaluation delivered again (same results, same time): no report is written;
      // only the intermediate report is deleted
      mark = auditMark(cluster);
      admin
          .resource(
              admissionReport(
                  ns,
                  "req-3",
                  "Deployment",
                  "apps",
                  "v1",
                  "api",
                  apiUid,
                  T0 + 5,
                  Map.of(
                      "disallow-latest-tag",
                      List.of(result("disallow-latest-tag", "autogen-check-tag", "pass", T0 + 5)))))
          .create();
      awaitDeletedCount(metrics, 3);
      awaitNoIntermediateReports(admin, ns);
      var unchanged = requestsOnceLogged(cluster, mark, ns, Map.of("aggregator", 1));
      assertThat(
              unchanged.getOrDefault("aggregator update policyreports", 0)
                  + unchanged.getOrDefault("aggregator create policyreports", 0))
          .as("no report write when nothing changed, %s", unchanged)
          .isZero();
      assertThat(unchanged.get("aggregator")).as("only the delete, %s", unchanged).isEqualTo(1);
      steps.add("admission (update, the same results again): " + unchanged);

      // 3b. the same verdict, evaluated later: only the result's timestamp moves, which is not
      // part of what decides a write (DESIGN section 6), so no report is written either, where
      // Kyverno's aggregation rewrites it
      mark = auditMark(cluster);
      admin
          .resource(
              admissionReport(
                  ns,
                  "req-3b",
                  "Deployment",
                  "apps",
                  "v1",
                  "api",
                  apiUid,
                  T0 + 10,
                  Map.of(
                      "disallow-latest-tag",
                      List.of(
                          result("disallow-latest-tag", "autogen-check-tag", "pass", T0 + 10)))))
          .create();
      awaitDeletedCount(metrics, 4);
      awaitNoIntermediateReports(admin, ns);
      var later = requestsOnceLogged(cluster, mark, ns, Map.of("aggregator", 1));
      assertThat(
              later.getOrDefault("aggregator update policyreports", 0)
                  + later.getOrDefault("aggregator create policyreports", 0))
          .as("no report write when only the time moved, %s", later)
          .isZero();
      assertThat(later.get("aggregator")).as("only the delete: %s", later).isEqualTo(1);
      steps.add("admission (the same verdict later): " + later);

      // 4. the Pod is fixed: the background scan evaluates require-labels again; check-team
      // passes and check-owner no longer applies (no result). Kyverno's union keeps the old
      // check-owner fail; Tally's coverage retracts it.
      mark = auditMark(cluster);
      admin
          .resource(
              backgroundReport(
                  ns,
                  web,
                  T0 + 20,
                  Map.of(
                      "require-labels",
                      List.of(result("require-labels", "check-team", "pass", T0 + 20)))))
          .create();
      Await.until(
          "the fixed pod shows pass and no stale fail",
          () ->
              report(admin, ns, webUid)
                  .map(RealKyvernoTest::statuses)
                  .orElse(Map.of())
                  .equals(Map.of("require-labels/check-team", ResultStatus.PASS)));
      awaitNoIntermediateReports(admin, ns);
      steps.add("background scan after a fix: " + writes(cluster, mark, ns));

      // 5. a restart: the aggregator seeds itself from the reports and writes nothing
      controller.close();
    }
    long restartMark = auditMark(cluster);
    try (AggregatorController controller = kyvernoController(account, metrics).start()) {
      Await.until("the new aggregator has rebuilt", controller::isRebuilt);
      // none expected: read once the log holds a marker made after the rebuild
      var restart = requestsOnceMarked(cluster, restartMark, ns);
      assertThat(restart.get("aggregator")).as("a restart writes nothing, %s", restart).isZero();
      steps.add("restart: " + restart);

      // its state came from the reports: a new admission result joins the seeded one
      String webUid = admin.pods().inNamespace(ns).withName("web").get().getMetadata().getUid();
      String apiUid =
          admin.apps().deployments().inNamespace(ns).withName("api").get().getMetadata().getUid();
      admin
          .resource(
              admissionReport(
                  ns,
                  "req-4",
                  "Pod",
                  "",
                  "v1",
                  "web",
                  webUid,
                  T0 + 30,
                  Map.of(
                      "disallow-latest-tag",
                      List.of(
                          result("disallow-latest-tag", "autogen-check-tag", "fail", T0 + 30)))))
          .create();
      Await.until(
          "the seeded result and the new one are both in the report",
          () ->
              report(admin, ns, webUid)
                  .map(RealKyvernoTest::statuses)
                  .orElse(Map.of())
                  .equals(
                      Map.of(
                          "disallow-latest-tag/autogen-check-tag",
                          ResultStatus.FAIL,
                          "require-labels/check-team",
                          ResultStatus.PASS)));
      awaitNoIntermediateReports(admin, ns);

      // 6. the Pod is deleted: the garbage collector removes its report, and the aggregator,
      // seeing it vanish with its resource, does not write it again
      admin.pods().inNamespace(ns).withName("web").withGracePeriod(0).delete();
      Await.until(
          "the pod's report is collected",
          () -> report(admin, ns, webUid).isEmpty(),
          Duration.ofSeconds(120));
      controller.resyncNow().get(60, TimeUnit.SECONDS);
      controller.resyncNow().get(60, TimeUnit.SECONDS);
      assertThat(report(admin, ns, webUid))
          .as("the deleted pod's report is not rewritten")
          .isEmpty();
      // (other tests' reports, in their namespaces, are this aggregator's too)
      assertThat(controller.desired().get(60, TimeUnit.SECONDS))
          .filteredOn(r -> r.ref().namespace().equals(ns))
          .extracting(r -> r.ref().name())
          .containsExactly(apiUid);
      awaitNoIntermediateReports(admin, ns);

      // 7. a policy is deleted: its results leave the reports, as with Kyverno's own aggregation;
      // the next background scan no longer evaluates it
      KyvernoPolicyWatchTest.delete(
          admin, KyvernoPolicyWatchTest.clusterPolicy("disallow-latest-tag"));
      Await.until(
          "the deleted policy's result leaves the deployment's report",
          () -> report(admin, ns, apiUid).map(r -> r.results().isEmpty()).orElse(true));
      admin
          .resource(
              admissionReport(
                  ns,
                  "req-5",
                  "Deployment",
                  "apps",
                  "v1",
                  "api",
                  apiUid,
                  T0 + 40,
                  Map.of(
                      "require-labels",
                      List.of(result("require-labels", "check-team", "pass", T0 + 40)))))
          .create();
      Await.until(
          "the deployment shows only the live policy's result",
          () ->
              report(admin, ns, apiUid)
                  .map(RealKyvernoTest::statuses)
                  .orElse(Map.of())
                  .equals(Map.of("require-labels/check-team", ResultStatus.PASS)));
      awaitNoIntermediateReports(admin, ns);
    }
  }

  /** With openreports output, as Kyverno's own openreports mode: a Report named by the uid. */
  @Test
  void kyvernosLayoutInTheOpenreportsFormat(RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installKyvernoCrds(admin);
    installKyvernoRole(admin);
    String ns = cluster.namespace();
    KubernetesClient account = cluster.serviceAccount("aggregator", "tally-kyverno-aggregator");
    try (AggregatorController controller =
        AggregatorController.builder(account)
            .maxClockSkew(SCENARIO_SKEW)
            .aggregator(
                () ->
                    ReportAggregator.builder()
                        .grouping(Grouping.kyvernoPerResource())
                        .format(dev.tally.report.api.ReportFormat.OPENREPORTS)
                        .build())
            .input(KyvernoInput.deleteAfterMerge())
            .flushWindow(Duration.ZERO)
            .build()
            .start()) {
      Pod pod = MockCluster.pod(admin, ns, "open");
      String uid = pod.getMetadata().getUid();
      admin
          .resource(
              backgroundReport(
                  ns,
                  pod,
                  T0,
                  Map.of(
                      "require-labels",
                      List.of(result("require-labels", "check-team", "fail", T0)))))
          .create();
      Await.until(
          "the Report is written",
          () ->
              admin
                      .resources(dev.tally.report.fabric8.resource.ReportResource.class)
                      .inNamespace(ns)
                      .withName(uid)
                      .get()
                  != null);
      AggregateReport report =
          ReportCodec.decode(
              admin
                  .resources(dev.tally.report.fabric8.resource.ReportResource.class)
                  .inNamespace(ns)
                  .withName(uid)
                  .get());
      assertThat(report.labels()).isEqualTo(Map.of(WireNames.MANAGED_BY_LABEL, "kyverno"));
      assertThat(report.owner().orElseThrow().uid()).isEqualTo(uid);
      assertThat(statuses(report))
          .isEqualTo(Map.of("require-labels/check-team", ResultStatus.FAIL));
      awaitNoIntermediateReports(admin, ns);
    }
  }

  /**
   * An admission report about a resource that never appears is deleted after the grace, counted,
   * and leaves nothing behind.
   */
  @Test
  void anAdmissionReportWhoseResourceNeverAppearsIsDeletedAfterTheGrace(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installKyvernoCrds(admin);
    installKyvernoRole(admin);
    String ns = cluster.namespace();
    KubernetesClient account = cluster.serviceAccount("aggregator", "tally-kyverno-aggregator");
    CountingMetrics metrics = new CountingMetrics();
    try (AggregatorController controller =
        kyvernoController(account, metrics, Duration.ofSeconds(2)).start()) {
      Await.until("the aggregator has rebuilt", controller::isRebuilt);
      admin
          .resource(
              admissionReport(
                  ns,
                  "req-x",
                  "Pod",
                  "",
                  "v1",
                  "never",
                  null,
                  T0,
                  Map.of(
                      "require-labels",
                      List.of(result("require-labels", "check-team", "fail", T0)))))
          .create();
      Await.until("the report is expired", () -> metrics.expired >= 1, Duration.ofSeconds(60));
      awaitNoIntermediateReports(admin, ns);
      assertThat(admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems())
          .isEmpty();

      // a report Kyverno could not have written (no kind label) is refused, named, and kept
      GenericKubernetesResource bad =
          admissionReport(
              ns,
              "req-bad",
              "Pod",
              "",
              "v1",
              "web",
              "0000-bad",
              T0,
              Map.of(
                  "require-labels", List.of(result("require-labels", "check-team", "fail", T0))));
      bad.getMetadata().getLabels().remove("audit.kyverno.io/resource.kind");
      admin.resource(bad).create();
      Await.until(
          "a Rejected event names the missing label",
          () ->
              admin.v1().events().inNamespace(ns).list().getItems().stream()
                  .anyMatch(
                      e ->
                          "Rejected".equals(e.getReason())
                              && e.getMessage()
                                  .contains("metadata.labels[audit.kyverno.io/resource.kind]")));
      controller.flushNow().get(60, TimeUnit.SECONDS);
      assertThat(
              admin
                  .genericKubernetesResources(KyvernoInput.EPHEMERAL)
                  .inNamespace(ns)
                  .withName("req-bad-r")
                  .get())
          .as("a refused report is not deleted: nothing it said was merged")
          .isNotNull();
      assertThat(admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems())
          .isEmpty();
    }
  }

  /**
   * {@link KyvernoInput.Lifecycle#KEEP}: the intermediate reports are the state. Adoption writes
   * the uid label and owner reference onto an admission report, as Kyverno does; a
   * ClusterEphemeralReport about a Namespace becomes a ClusterPolicyReport named by its uid;
   * deleting the Pod lets the garbage collector remove its reports, and the aggregator retracts its
   * results.
   */
  @Test
  void keptIntermediateReportsAreAdoptedCollectedWithTheirResourceAndRetracted(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installKyvernoCrds(admin);
    installKyvernoRole(admin);
    String ns = cluster.namespace();
    KubernetesClient account = cluster.serviceAccount("aggregator", "tally-kyverno-aggregator");
    CountingMetrics metrics = new CountingMetrics();
    try (AggregatorController controller =
        AggregatorController.builder(account)
            .maxClockSkew(SCENARIO_SKEW)
            .aggregator(
                () -> ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build())
            .input(KyvernoInput.keep().withAdoptionRetry(Duration.ofMillis(200)))
            .flushWindow(Duration.ZERO)
            .metrics(metrics)
            .build()
            .start()) {
      Await.until("the aggregator has rebuilt", controller::isRebuilt);
      GenericKubernetesResource created =
          admin
              .resource(
                  admissionReport(
                      ns,
                      "req-k",
                      "Pod",
                      "",
                      "v1",
                      "kept",
                      null,
                      T0,
                      Map.of(
                          "require-labels",
                          List.of(result("require-labels", "check-team", "fail", T0)))))
              .create();
      Pod kept = MockCluster.pod(admin, ns, "kept");
      String uid = kept.getMetadata().getUid();
      Await.until("the pod's report is written", () -> report(admin, ns, uid).isPresent());
      var adopted =
          admin
              .genericKubernetesResources(KyvernoInput.EPHEMERAL)
              .inNamespace(ns)
              .withName("req-k-r")
              .get();
      assertThat(adopted.getMetadata().getLabels())
          .containsEntry("audit.kyverno.io/resource.uid", uid);
      assertThat(adopted.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(o -> assertThat(o.getUid()).isEqualTo(uid));
      // adoption patches the metadata only: what Tally does not read of the report stays
      assertThat(adopted.getMetadata().getLabels())
          .containsAllEntriesOf(created.getMetadata().getLabels());
      assertThat(adopted.getMetadata().getAnnotations())
          .isEqualTo(created.getMetadata().getAnnotations());
      assertThat(adopted.getAdditionalProperties().get("spec"))
          .isEqualTo(created.getAdditionalProperties().get("spec"));

      // a cluster-scoped resource: the test's Namespace
      var namespace = admin.namespaces().withName(ns).get();
      String nsUid = namespace.getMetadata().getUid();
      admin.resource(clusterBackgroundReport(namespace, T0 + 1)).create();
      Await.until(
          "the namespace's ClusterPolicyReport is written",
          () ->
              admin
                      .resources(
                          dev.tally.report.fabric8.resource.ClusterPolicyReportResource.class)
                      .withName(nsUid)
                      .get()
                  != null);
      var clusterReport =
          ReportCodec.decode(
              admin
                  .resources(dev.tally.report.fabric8.resource.ClusterPolicyReportResource.class)
                  .withName(nsUid)
                  .get());
      assertThat(clusterReport.labels()).isEqualTo(Map.of(WireNames.MANAGED_BY_LABEL, "kyverno"));
      assertThat(clusterReport.scope().orElseThrow().kind()).isEqualTo("Namespace");
      assertThat(metrics.deleted).as("kept, not deleted").isZero();

      admin.pods().inNamespace(ns).withName("kept").withGracePeriod(0).delete();
      awaitNoIntermediateReports(admin, ns);
      // the collector removes the intermediate reports (and may remove the report itself) before
      // the aggregator's informer has seen their deletion: wait for the aggregator to retract
      Await.until(
          "the aggregator has retracted the pod's results",
          () -> controller.desired().join().stream().noneMatch(r -> r.ref().name().equals(uid)),
          Duration.ofSeconds(120));
      Await.until(
          "the pod's report is gone",
          () -> report(admin, ns, uid).isEmpty(),
          Duration.ofSeconds(120));
      controller.resyncNow().get(60, TimeUnit.SECONDS);
      assertThat(report(admin, ns, uid)).isEmpty();
      assertThat(controller.desired().get(60, TimeUnit.SECONDS))
          .filteredOn(r -> r.ref().namespace().equals(ns) || r.ref().name().equals(nsUid))
          .extracting(r -> r.ref().name())
          .containsExactly(nsUid);
      admin
          .resources(dev.tally.report.fabric8.resource.ClusterPolicyReportResource.class)
          .withName(nsUid)
          .delete();
      admin
          .genericKubernetesResources(KyvernoInput.CLUSTER_EPHEMERAL)
          .withName(nsUid + "-b")
          .delete();
    }
  }

  /** A background-scan ClusterEphemeralReport about a Namespace, owned by it. */
  static GenericKubernetesResource clusterBackgroundReport(
      io.fabric8.kubernetes.api.model.Namespace namespace, long seconds) {
    return clusterBackgroundReport(namespace, seconds, "fail");
  }

  /** A background scan of the namespace whose one result has {@code status}. */
  static GenericKubernetesResource clusterBackgroundReport(
      io.fabric8.kubernetes.api.model.Namespace namespace, long seconds, String status) {
    String uid = namespace.getMetadata().getUid();
    Map<String, Object> object = new LinkedHashMap<>();
    object.put("apiVersion", "reports.kyverno.io/v1");
    object.put("kind", "ClusterEphemeralReport");
    object.put(
        "metadata",
        Map.of(
            "name", uid + "-b",
            "labels",
                Map.of(
                    "app.kubernetes.io/managed-by", "kyverno",
                    "audit.kyverno.io/source", "background-scan",
                    "audit.kyverno.io/resource.group", "",
                    "audit.kyverno.io/resource.version", "v1",
                    "audit.kyverno.io/resource.kind", "Namespace",
                    "audit.kyverno.io/resource.uid", uid,
                    "cpol.kyverno.io/require-ns-owner", "1"),
            "annotations",
                Map.of(
                    "audit.kyverno.io/resource.name",
                    namespace.getMetadata().getName(),
                    "audit.kyverno.io/last-scan-time",
                    java.time.Instant.ofEpochSecond(seconds).toString()),
            "ownerReferences",
                List.of(
                    Map.of(
                        "apiVersion",
                        "v1",
                        "kind",
                        "Namespace",
                        "name",
                        namespace.getMetadata().getName(),
                        "uid",
                        uid))));
    object.put(
        "spec",
        Map.of(
            // Kyverno always writes spec.owner, with four empty strings; the CRD requires it
            "owner", Map.of("apiVersion", "", "kind", "", "name", "", "uid", ""),
            "results", List.of(result("require-ns-owner", "check", status, seconds))));
    return Serialization.unmarshal(Serialization.asJson(object), GenericKubernetesResource.class);
  }

  // ------------------------------------------------------------------------------------ helpers

  static AggregatorController kyvernoController(KubernetesClient client, CountingMetrics metrics) {
    return kyvernoController(client, metrics, Duration.ofSeconds(30));
  }

  static AggregatorController kyvernoController(
      KubernetesClient client, CountingMetrics metrics, Duration grace) {
    return AggregatorController.builder(client)
        .maxClockSkew(SCENARIO_SKEW)
        .aggregator(
            () -> ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build())
        .input(
            KyvernoInput.deleteAfterMerge()
                .withAdoptionRetry(Duration.ofMillis(200))
                .withAdoptionGrace(grace))
        .flushWindow(Duration.ZERO)
        // writes and deletes side by side, as the aggregator program makes them
        .writeConcurrency(4)
        .metrics(metrics)
        .build();
  }

  static synchronized void installKyvernoCrds(KubernetesClient admin) {
    for (String file : KYVERNO_CRDS) {
      var crd = Serialization.unmarshal(TestResources.crd(file), CustomResourceDefinition.class);
      admin.resource(crd).createOr(existing -> existing.update());
    }
    Await.until(
        "Kyverno's intermediate reports are served",
        () -> {
          try {
            admin.genericKubernetesResources(KyvernoInput.EPHEMERAL).inAnyNamespace().list();
            admin.genericKubernetesResources(KyvernoInput.CLUSTER_EPHEMERAL).list();
            return true;
          } catch (RuntimeException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }

  static void installKyvernoRole(KubernetesClient admin) {
    for (HasMetadata role :
        admin
            .load(
                new java.io.ByteArrayInputStream(
                    KyvernoInput.rbacYaml().getBytes(java.nio.charset.StandardCharsets.UTF_8)))
            .items()) {
      admin.resource(role).createOr(existing -> existing.update());
    }
  }

  public static Map<String, Object> result(
      String policy, String rule, String status, long seconds) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("source", "kyverno");
    r.put("policy", policy);
    r.put("rule", rule);
    r.put("result", status);
    r.put("message", "rule " + rule + " " + status + "ed");
    r.put("scored", true);
    r.put("timestamp", Map.of("seconds", seconds, "nanos", 0));
    r.put("properties", Map.of("process", "admission review"));
    return r;
  }

  /**
   * An admission report as Kyverno's webhook writes it: no owner; the uid label only when the
   * request knew the object's uid.
   */
  public static GenericKubernetesResource admissionReport(
      String ns,
      String requestUid,
      String kind,
      String group,
      String version,
      String name,
      @Nullable String uid,
      long seconds,
      Map<String, List<Map<String, Object>>> resultsByPolicy) {
    Map<String, String> labels = new TreeMap<>();
    labels.put("app.kubernetes.io/managed-by", "kyverno");
    labels.put("audit.kyverno.io/source", "admission");
    labels.put("audit.kyverno.io/resource.group", group);
    labels.put("audit.kyverno.io/resource.version", version);
    labels.put("audit.kyverno.io/resource.kind", kind);
    String plural = kind.toLowerCase(java.util.Locale.ROOT) + "s";
    labels.put(
        "audit.kyverno.io/resource.gvr",
        group.isEmpty() ? plural + "." + version : plural + "." + version + "." + group);
    if (uid != null) {
      labels.put("audit.kyverno.io/resource.uid", uid);
    }
    return report(ns, requestUid + "-r", labels, name, null, seconds, resultsByPolicy);
  }

  /** A background-scan report as Kyverno writes it: owned by the resource, with its uid. */
  static GenericKubernetesResource backgroundReport(
      String ns, Pod pod, long seconds, Map<String, List<Map<String, Object>>> resultsByPolicy) {
    Map<String, String> labels = new TreeMap<>();
    labels.put("app.kubernetes.io/managed-by", "kyverno");
    labels.put("audit.kyverno.io/source", "background-scan");
    labels.put("audit.kyverno.io/resource.group", "");
    labels.put("audit.kyverno.io/resource.version", "v1");
    labels.put("audit.kyverno.io/resource.kind", "Pod");
    labels.put("audit.kyverno.io/resource.uid", pod.getMetadata().getUid());
    labels.put("audit.kyverno.io/resource.hash", "0123456789abcdef0123456789abcdef");
    return report(
        ns,
        pod.getMetadata().getUid() + "-b",
        labels,
        pod.getMetadata().getName(),
        pod,
        seconds,
        resultsByPolicy);
  }

  private static GenericKubernetesResource report(
      String ns,
      String name,
      Map<String, String> labels,
      String resourceName,
      @Nullable Pod owner,
      long seconds,
      Map<String, List<Map<String, Object>>> resultsByPolicy) {
    List<Object> results = new ArrayList<>();
    for (var e : new TreeMap<>(resultsByPolicy).entrySet()) {
      labels.put("cpol.kyverno.io/" + e.getKey(), "1");
      results.addAll(e.getValue());
    }
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("name", name);
    meta.put("namespace", ns);
    meta.put("labels", labels);
    Map<String, String> annotations = new TreeMap<>();
    annotations.put("audit.kyverno.io/resource.namespace", ns);
    annotations.put("audit.kyverno.io/resource.name", resourceName);
    if (owner != null) {
      annotations.put(
          "audit.kyverno.io/last-scan-time", java.time.Instant.ofEpochSecond(seconds).toString());
      meta.put(
          "ownerReferences",
          List.of(
              Map.of(
                  "apiVersion",
                  "v1",
                  "kind",
                  "Pod",
                  "name",
                  owner.getMetadata().getName(),
                  "uid",
                  owner.getMetadata().getUid())));
    }
    meta.put("annotations", annotations);
    Map<String, Object> object = new LinkedHashMap<>();
    object.put("apiVersion", "reports.kyverno.io/v1");
    object.put("kind", "EphemeralReport");
    object.put("metadata", meta);
    object.put(
        "spec",
        Map.of(
            "owner", Map.of("apiVersion", "", "kind", "", "name", "", "uid", ""),
            "results", results,
            "summary", Map.of()));
    return Serialization.unmarshal(Serialization.asJson(object), GenericKubernetesResource.class);
  }

  static Optional<AggregateReport> report(KubernetesClient admin, String ns, String uid) {
    PolicyReportResource r =
        admin.resources(PolicyReportResource.class).inNamespace(ns).withName(uid).get();
    return r == null ? Optional.empty() : Optional.of(ReportCodec.decode(r));
  }

  public static Map<String, ResultStatus> statuses(AggregateReport report) {
    Map<String, ResultStatus> out = new TreeMap<>();
    for (Result r : report.results()) {
      out.put(r.policy() + "/" + r.rule(), r.status());
    }
    return out;
  }

  static void awaitNoIntermediateReports(KubernetesClient admin, String ns) {
    Await.until(
        "no intermediate report is left in etcd",
        () ->
            admin
                .genericKubernetesResources(KyvernoInput.EPHEMERAL)
                .inNamespace(ns)
                .list()
                .getItems()
                .isEmpty(),
        Duration.ofSeconds(60));
  }

  static void awaitDeletedCount(CountingMetrics metrics, int count) {
    Await.until(count + " intermediate reports deleted", () -> metrics.deleted >= count);
  }

  /** The step's requests, shown (not asserted), once the log holds a marker made after them. */
  private static Map<String, Integer> writes(RealKubernetes.Cluster cluster, long mark, String ns)
      throws java.io.IOException {
    return requestsOnceMarked(cluster, mark, ns);
  }
}
