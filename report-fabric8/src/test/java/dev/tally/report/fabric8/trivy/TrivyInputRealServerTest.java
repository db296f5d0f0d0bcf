package dev.tally.report.fabric8.trivy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.CountingMetrics;
import dev.tally.report.fabric8.RealServer;
import dev.tally.report.fabric8.TestResources;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * trivy-operator's config audit reports as the controller's input, on the real control plane with
 * trivy-operator's own CRD: the reports are written as trivy-operator writes them (owned by the
 * resource scanned, failed checks only), and the aggregator runs as a service account bound to the
 * shipped {@code tally-trivy-aggregator} role alone. A rescan that no longer lists a check retracts
 * it, a report trivy's schema accepts but Tally cannot read is refused with an Event naming the
 * field and changes nothing, and deleting the resource (garbage collection removes its report)
 * retracts the rest.
 */
@ExtendWith(RealKubernetes.class)
class TrivyInputRealServerTest {
  private static final Duration WAIT = Duration.ofSeconds(120);

  @Test
  void configAuditReportsArePolicyReportsAFixedCheckIsRetractedAndSoIsADeletedResource(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    RealServer.installCrds(admin);
    installTrivyCrd(admin);
    for (HasMetadata role :
        admin
            .load(new ByteArrayInputStream(TrivyInput.rbacYaml().getBytes(StandardCharsets.UTF_8)))
            .items()) {
      admin.resource(role).createOr(existing -> existing.update());
    }
    String ns = cluster.namespace();
    KubernetesClient account = cluster.serviceAccount("trivy-aggregator", "tally-trivy-aggregator");
    ConfigMap scanned =
        admin
            .configMaps()
            .inNamespace(ns)
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName("app-config")
                    .endMetadata()
                    .withData(Map.of("mode", "debug"))
                    .build())
            .create();
    CountingMetrics metrics = new CountingMetrics();

    try (AggregatorController controller =
        AggregatorController.builder(account)
            .aggregator(() -> ReportAggregator.builder().grouping(Grouping.perNamespace()).build())
            .input(new TrivyInput())
            .metrics(metrics)
            .flushWindow(Duration.ofMillis(100))
            // the scans are dated 2030, so that their order is the script's: the clock rule has
            // tests of its own
            .maxClockSkew(Duration.ofDays(36_500))
            .build()
            .start()) {
      // the first scan finds two failed checks
      admin
          .genericKubernetesResources(TrivyInput.CONFIG_AUDIT_REPORTS)
          .inNamespace(ns)
          .resource(
              report(
                  ns,
                  "configmap-app-config",
                  scanned,
                  "2030-01-01T00:00:00Z",
                  List.of(check("KSV01010", "CRITICAL"), check("KSV01011", "LOW"))))
          .create();
      awaitFailures(admin, ns, List.of("KSV01010", "KSV01011"));

      // the rescan no longer lists the first check, fixed since: it is retracted
      admin
          .genericKubernetesResources(TrivyInput.CONFIG_AUDIT_REPORTS)
          .inNamespace(ns)
          .withName("configmap-app-config")
          .edit(
              r -> {
                Map<String, Object> report = reportOf(r);
                report.put("updateTimestamp", "2030-01-01T01:00:00Z");
                report.put("checks", List.of(check("KSV01011", "LOW")));
                return r;
              });
      awaitFailures(admin, ns, List.of("KSV01011"));

      // trivy's schema lets any severity through; Tally names the field and changes nothing
      ConfigMap other =
          admin
              .configMaps()
              .inNamespace(ns)
              .resource(
                  new ConfigMapBuilder().withNewMetadata().withName("other").endMetadata().build())
              .create();
      admin
          .genericKubernetesResources(TrivyInput.CONFIG_AUDIT_REPORTS)
          .inNamespace(ns)
          .resource(
              report(
                  ns,
                  "configmap-other",
                  other,
                  "2030-01-01T00:00:00Z",
                  List.of(check("KSV01010", "SEVERE"))))
          .create();
      Await.until(
          "a rejection Event names the severity",
          () ->
              admin.v1().events().inNamespace(ns).list().getItems().stream()
                  .anyMatch(
                      e ->
                          e.getMessage() != null
                              && e.getMessage().contains("report.checks[0].severity")),
          WAIT);
      controller.desired().get(60, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(failures(admin, ns)).containsExactly("KSV01011");

      // the resource is deleted; garbage collection removes its report, which retracts the rest
      admin.configMaps().inNamespace(ns).withName("app-config").delete();
      awaitFailures(admin, ns, List.of());
      assertThat(metrics.applied).isEqualTo(2);
    }
  }

  private static void installTrivyCrd(KubernetesClient admin) {
    CustomResourceDefinition crd =
        Serialization.unmarshal(
            TestResources.read("trivy/aquasecurity.github.io_configauditreports.yaml"),
            CustomResourceDefinition.class);
    admin.resource(crd).createOr(existing -> existing.update());
    Await.until(
        "trivy-operator's ConfigAuditReport is served",
        () -> {
          try {
            admin
                .genericKubernetesResources(TrivyInput.CONFIG_AUDIT_REPORTS)
                .inAnyNamespace()
                .list();
            return true;
          } catch (KubernetesClientException e) {
            return false;
          }
        },
        WAIT);
  }

  /** A config audit report as trivy-operator writes it: owned by {@code scanned}, labelled. */
  private static GenericKubernetesResource report(
      String ns, String name, ConfigMap scanned, String updated, List<Map<String, Object>> checks) {
    GenericKubernetesResource r =
        new GenericKubernetesResourceBuilder()
            .withApiVersion("aquasecurity.github.io/v1alpha1")
            .withKind("ConfigAuditReport")
            .withNewMetadata()
            .withNamespace(ns)
            .withName(name)
            .addToLabels("trivy-operator.resource.kind", "ConfigMap")
            .addToLabels("trivy-operator.resource.name", scanned.getMetadata().getName())
            .addToLabels("trivy-operator.resource.namespace", ns)
            .addToOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("v1")
                    .withKind("ConfigMap")
                    .withName(scanned.getMetadata().getName())
                    .withUid(scanned.getMetadata().getUid())
                    .withController(true)
                    .withBlockOwnerDeletion(false)
                    .build())
            .endMetadata()
            .build();
    r.setAdditionalProperty(
        "report",
        new java.util.HashMap<>(
            Map.of(
                "updateTimestamp",
                updated,
                "scanner",
                Map.of("name", "Trivy", "vendor", "Aqua Security", "version", "0.29.0"),
                "summary",
                Map.of("criticalCount", 0, "highCount", 0, "mediumCount", 0, "lowCount", 0),
                "checks",
                checks)));
    return r;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> reportOf(GenericKubernetesResource r) {
    return (Map<String, Object>) r.getAdditionalProperties().get("report");
  }

  private static Map<String, Object> check(String id, String severity) {
    return Map.of(
        "checkID",
        id,
        "title",
        "check " + id,
        "severity",
        severity,
        "success",
        false,
        "category",
        "Kubernetes Security Check",
        "messages",
        List.of("configure it"));
  }

  private static void awaitFailures(KubernetesClient admin, String ns, List<String> rules) {
    Await.until("the failures are " + rules, () -> failures(admin, ns).equals(rules), WAIT);
  }

  /** The rules of trivy's failures in the namespace's PolicyReports, sorted. */
  private static List<String> failures(KubernetesClient admin, String ns) {
    return admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems().stream()
        .flatMap(r -> ReportCodec.decode(r).results().stream())
        .filter(r -> r.source().equals("trivy") && r.status() == ResultStatus.FAIL)
        .map(Result::rule)
        .sorted()
        .toList();
  }
}
