package dev.tally.aggregator;

import static dev.tally.aggregator.AggregatorJarIT.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.kyverno.KyvernoInput;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code java -jar tally-aggregator.jar --input kyverno --kubeconfig …} against the real control
 * plane, as a service account bound only to the shipped {@code tally-kyverno-aggregator} roles: it
 * merges Kyverno's intermediate reports into per-resource PolicyReports in Kyverno's layout,
 * deletes each intermediate report once merged, retracts a result the next scan no longer produces,
 * and counts the deletions in its metrics.
 */
@ExtendWith(RealKubernetes.class)
class KyvernoAggregatorJarIT {
  static final ResourceDefinitionContext EPHEMERAL =
      new ResourceDefinitionContext.Builder()
          .withGroup("reports.kyverno.io")
          .withVersion("v1")
          .withKind("EphemeralReport")
          .withPlural("ephemeralreports")
          .withNamespaced(true)
          .build();

  @Test
  void theJarAggregatesKyvernosIntermediateReportsIntoKyvernosLayout(
      RealKubernetes.Cluster cluster, @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    installKyvernoCrds(admin);
    for (HasMetadata role :
        admin
            .load(
                new ByteArrayInputStream(KyvernoInput.rbacYaml().getBytes(StandardCharsets.UTF_8)))
            .items()) {
      admin.resource(role).createOr(existing -> existing.update());
    }
    AggregatorJarIT.awaitReportKindsServed(admin);
    KubernetesClient account =
        cluster.serviceAccount(
            "aggregator", "tally-kyverno-aggregator", "tally-kyverno-aggregator-lease");
    Path kubeconfig = AggregatorJarIT.kubeconfigFor(cluster, account, dir.resolve("kubeconfig"));
    Pod pod = AggregatorJarIT.pod(admin, ns, "web");
    String uid = pod.getMetadata().getUid();

    try (JarProcess jar =
        JarProcess.start(
            "kyverno-aggregator",
            AggregatorJarIT.freePort(),
            "--input",
            "kyverno",
            "--kubeconfig",
            kubeconfig.toString(),
            "--lease-namespace",
            ns,
            "--lease-name=tally-kyverno-aggregator",
            "--flush-window=100ms",
            "--http-port=0")) {
      // a background scan finds two failing rules (a minute ahead: later than the reports'
      // creation, so that they order the two scans, and within --max-clock-skew, 5m)
      long t0 = java.time.Instant.now().getEpochSecond() + 60;
      admin
          .resource(
              backgroundReport(
                  ns,
                  pod,
                  "scan-1",
                  t0,
                  List.of(result("check-team", "fail", t0), result("check-owner", "fail", t0))))
          .create();
      await(
          jar,
          "the pod's report holds both failures",
          () ->
              report(admin, ns, uid)
                  .map(KyvernoAggregatorJarIT::statuses)
                  .orElse(Map.of())
                  .equals(
                      Map.of("check-owner", ResultStatus.FAIL, "check-team", ResultStatus.FAIL)));
      AggregateReport report = report(admin, ns, uid).orElseThrow();
      assertThat(report.ref().name()).isEqualTo(uid);
      assertThat(report.labels()).isEqualTo(Map.of(WireNames.MANAGED_BY_LABEL, "kyverno"));
      assertThat(report.owner().orElseThrow().uid()).isEqualTo(uid);
      await(jar, "the intermediate report is deleted", () -> intermediate(admin, ns) == 0);

      // the pod is fixed: the next scan passes check-team and has no result for check-owner
      admin
          .resource(
              backgroundReport(
                  ns, pod, "scan-2", t0 + 60, List.of(result("check-team", "pass", t0 + 60))))
          .create();
      await(
          jar,
          "the fixed pod shows pass and no stale fail",
          () ->
              report(admin, ns, uid)
                  .map(KyvernoAggregatorJarIT::statuses)
                  .orElse(Map.of())
                  .equals(Map.of("check-team", ResultStatus.PASS)));
      await(jar, "the intermediate report is deleted", () -> intermediate(admin, ns) == 0);

      jar.process.destroy();
      assertThat(jar.waitFor(Duration.ofSeconds(60))).as(jar.output()).isZero();
      assertThat(jar.stderr()).contains("input kyverno").doesNotContain("\tat ", "ERROR");
    }
  }

  static void installKyvernoCrds(KubernetesClient admin) throws java.io.IOException {
    Path crds =
        Path.of(System.getProperty("tally.crds.dir", "../report-fabric8/src/test/resources/crds"));
    for (String file :
        List.of(
            "reports.kyverno.io_ephemeralreports.v1.yaml",
            "reports.kyverno.io_clusterephemeralreports.v1.yaml")) {
      var crd =
          Serialization.unmarshal(
              Files.readString(crds.resolve(file)), CustomResourceDefinition.class);
      admin.resource(crd).createOr(existing -> existing.update());
    }
    Await.until(
        "Kyverno's intermediate reports are served",
        () -> {
          try {
            admin.genericKubernetesResources(EPHEMERAL).inAnyNamespace().list();
            return true;
          } catch (RuntimeException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }

  private static Map<String, Object> result(String rule, String status, long seconds) {
    return Map.of(
        "source",
        "kyverno",
        "policy",
        "require-labels",
        "rule",
        rule,
        "result",
        status,
        "message",
        rule + " " + status,
        "scored",
        true,
        "timestamp",
        Map.of("seconds", seconds, "nanos", 0),
        "properties",
        Map.of("process", "background scan"));
  }

  /** A background-scan report as Kyverno writes it: owned by the Pod, labelled with its uid. */
  private static GenericKubernetesResource backgroundReport(
      String ns, Pod pod, String name, long seconds, List<Map<String, Object>> results) {
    String uid = pod.getMetadata().getUid();
    Map<String, Object> object =
        Map.of(
            "apiVersion",
            "reports.kyverno.io/v1",
            "kind",
            "EphemeralReport",
            "metadata",
            Map.of(
                "name",
                uid + "-" + name,
                "namespace",
                ns,
                "labels",
                Map.of(
                    "app.kubernetes.io/managed-by", "kyverno",
                    "audit.kyverno.io/source", "background-scan",
                    "audit.kyverno.io/resource.group", "",
                    "audit.kyverno.io/resource.version", "v1",
                    "audit.kyverno.io/resource.kind", "Pod",
                    "audit.kyverno.io/resource.uid", uid,
                    "cpol.kyverno.io/require-labels", "1"),
                "annotations",
                Map.of(
                    "audit.kyverno.io/resource.namespace", ns,
                    "audit.kyverno.io/resource.name", pod.getMetadata().getName(),
                    "audit.kyverno.io/last-scan-time",
                        java.time.Instant.ofEpochSecond(seconds).toString()),
                "ownerReferences",
                List.of(
                    Map.of(
                        "apiVersion",
                        "v1",
                        "kind",
                        "Pod",
                        "name",
                        pod.getMetadata().getName(),
                        "uid",
                        uid))),
            "spec",
            Map.of(
                // Kyverno always writes spec.owner, with four empty strings; the CRD requires it
                "owner",
                Map.of("apiVersion", "", "kind", "", "name", "", "uid", ""),
                "results",
                results));
    return Serialization.unmarshal(Serialization.asJson(object), GenericKubernetesResource.class);
  }

  private static Optional<AggregateReport> report(KubernetesClient admin, String ns, String uid) {
    PolicyReportResource r =
        admin.resources(PolicyReportResource.class).inNamespace(ns).withName(uid).get();
    return r == null ? Optional.empty() : Optional.of(ReportCodec.decode(r));
  }

  private static Map<String, ResultStatus> statuses(AggregateReport report) {
    Map<String, ResultStatus> out = new java.util.TreeMap<>();
    report.results().forEach(r -> out.put(r.rule(), r.status()));
    return out;
  }

  private static int intermediate(KubernetesClient admin, String ns) {
    return admin.genericKubernetesResources(EPHEMERAL).inNamespace(ns).list().getItems().size();
  }
}
