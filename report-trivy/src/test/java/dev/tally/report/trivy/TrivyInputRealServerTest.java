package dev.tally.report.trivy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.CountingMetrics;
import dev.tally.report.fabric8.RealServer;
import dev.tally.report.fabric8.TestResources;
import dev.tally.report.fabric8.client.ApiServerJson;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.AuditLog;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * trivy-operator's config audit reports as the controller's input, on the real control plane with
 * trivy-operator's own CRD: the reports are written as trivy-operator writes them (owned by the
 * resource scanned, failed checks only), and the aggregator runs as a service account bound to the
 * shipped {@code tally-trivy-aggregator} role alone. A rescan that no longer lists a check retracts
 * it, a report trivy's schema accepts but Tally cannot read is refused with an Event naming the
 * field and changes nothing, and deleting the resource (garbage collection removes its report)
 * retracts the rest. A tenant's reports carrying, in fields trivy's CRD keeps, a blob and nesting
 * as deep as the API server stores neither stop the informer nor are held, and another namespace's
 * reports are still aggregated; one past a bound is refused naming the field.
 */
@ExtendWith(RealKubernetes.class)
public class TrivyInputRealServerTest {
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
    KubernetesClient account =
        reading(cluster.serviceAccount("trivy-aggregator", "tally-trivy-aggregator"));
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
            .aggregator(
                () ->
                    ReportAggregator.builder()
                        .grouping(Grouping.perNamespace())
                        .input("trivy")
                        .build())
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
      // each scan is applied once: the ledger applies an object once per version, whether an
      // informer's event or its cache at the start of the term brings it (a failure names the
      // paths)
      int scans = metrics.applied;
      assertThat(scans).as("applied by %s", metrics.appliedBy()).isEqualTo(2);

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
      awaitRejection(admin, ns, "report.checks[0].severity");
      controller.desired().get(60, TimeUnit.SECONDS);
      assertThat(failures(admin, ns)).containsExactly("KSV01011");
      assertThat(metrics.applied)
          .as("the refused report is not applied (applied by %s)", metrics.appliedBy())
          .isEqualTo(scans);

      // the resource is deleted; garbage collection removes its report, which retracts the rest
      // without anything applied
      admin.configMaps().inNamespace(ns).withName("app-config").delete();
      awaitFailures(admin, ns, List.of());
      assertThat(metrics.applied)
          .as("a deletion is not an application (applied by %s)", metrics.appliedBy())
          .isEqualTo(scans);
    } finally {
      account.close();
    }
  }

  @Test
  void aTenantsReportsNestedAsDeepAsTheServerStoresWithABlobStopNothingAndHoldNothing(
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
    String tenantNs = cluster.otherNamespace("tenant");
    String writer =
        cluster.clusterRole(
            "configauditreport-writer",
            List.of(
                new PolicyRuleBuilder()
                    .withApiGroups("aquasecurity.github.io")
                    .withResources("configauditreports")
                    .withVerbs("create", "get", "update", "patch", "delete")
                    .build()));
    KubernetesClient tenant = cluster.tenant("writer", tenantNs, writer);
    ConfigMap app = configMap(admin, ns, "app-config");
    ConfigMap tenantApp = configMap(admin, tenantNs, "tenant-app");
    ConfigMap tenantOther = configMap(admin, tenantNs, "tenant-other");
    ConfigMap tenantThird = configMap(admin, tenantNs, "tenant-third");
    int depth = ApiServerJson.MAX_NESTING_DEPTH;

    // the deepest the server stores, and no deeper: arrays nested to its limit, the object counted,
    // and objects nested four levels less, whose mirror in managedFields reaches the limit (objects
    // nested deeper are written to etcd but the server can no longer read them, nor list any
    // report: never sent here)
    assertThat(
            post(
                tenant,
                tenantNs,
                rawReport(tenantNs, "too-deep", tenantApp, check("KSV01010", "CRITICAL"))
                    .replace("}}]}}", "}}]},\"deepArrays\":" + arrays(depth) + "}")))
        .as("arrays nested one level deeper than the server stores")
        .isEqualTo(400);
    assertThat(
            post(
                tenant,
                tenantNs,
                withDeepFieldsAndABlob(
                    rawReport(
                        tenantNs, "configmap-tenant-app", tenantApp, check("KSV01010", "CRITICAL")),
                    depth)))
        .isEqualTo(201);
    // the other namespace's scan, before the controller starts
    admin
        .genericKubernetesResources(TrivyInput.CONFIG_AUDIT_REPORTS)
        .inNamespace(ns)
        .resource(
            report(
                ns,
                "configmap-app-config",
                app,
                "2030-01-01T00:00:00Z",
                List.of(check("KSV01011", "LOW"))))
        .create();
    CountingMetrics metrics = new CountingMetrics();
    KubernetesClient account =
        reading(cluster.serviceAccount("trivy-aggregator", "tally-trivy-aggregator"));
    long mark = AuditLog.of(cluster.env()).mark();

    try (AggregatorController controller =
        AggregatorController.builder(account)
            .aggregator(
                () ->
                    ReportAggregator.builder()
                        .grouping(Grouping.perNamespace())
                        .input("trivy")
                        .build())
            .input(new TrivyInput())
            .metrics(metrics)
            .flushWindow(Duration.ofMillis(100))
            .maxClockSkew(Duration.ofDays(36_500))
            .build()
            .start()) {
      // the first LIST held the tenant's deep report, and both namespaces are aggregated
      awaitFailures(admin, tenantNs, List.of("KSV01010"));
      awaitFailures(admin, ns, List.of("KSV01011"));

      // the same through the watch: another deep report, then the other namespace's next scan
      assertThat(
              post(
                  tenant,
                  tenantNs,
                  withDeepFieldsAndABlob(
                      rawReport(
                          tenantNs,
                          "configmap-tenant-other",
                          tenantOther,
                          check("KSV01012", "HIGH")),
                      depth)))
          .isEqualTo(201);
      admin
          .genericKubernetesResources(TrivyInput.CONFIG_AUDIT_REPORTS)
          .inNamespace(ns)
          .withName("configmap-app-config")
          .edit(
              r -> {
                Map<String, Object> report = reportOf(r);
                report.put("updateTimestamp", "2030-01-01T01:00:00Z");
                report.put("checks", List.of(check("KSV01013", "MEDIUM")));
                return r;
              });
      awaitFailures(admin, tenantNs, List.of("KSV01010", "KSV01012"));
      awaitFailures(admin, ns, List.of("KSV01013"));

      // a report past a bound is refused, naming the field, and changes nothing
      List<Map<String, Object>> tooMany = new ArrayList<>();
      for (int i = 0; i <= 5_000; i++) {
        tooMany.add(check("KSV" + i, "LOW"));
      }
      tenant
          .genericKubernetesResources(TrivyInput.CONFIG_AUDIT_REPORTS)
          .inNamespace(tenantNs)
          .resource(
              report(
                  tenantNs, "configmap-tenant-third", tenantThird, "2030-01-01T00:00:00Z", tooMany))
          .create();
      Await.until(
          "a rejection Event names the checks",
          () ->
              admin.v1().events().inNamespace(tenantNs).list().getItems().stream()
                  .anyMatch(
                      e ->
                          e.getMessage() != null
                              && e.getMessage()
                                  .contains(
                                      "report.checks: has 5001 checks, at most 5000 allowed")),
          WAIT);
      controller.desired().get(60, TimeUnit.SECONDS);
      assertThat(failures(admin, tenantNs)).containsExactly("KSV01010", "KSV01012");
      assertThat(failures(admin, ns)).containsExactly("KSV01013");

      // one watch all along: an event that failed to decode would have closed it, and the
      // informer would have listed and watched again (read once the log holds a marker request
      // made after the checks above, so that a second watch started before it is there)
      String user = "system:serviceaccount:" + ns + ":trivy-aggregator";
      AuditLog.of(cluster.env()).awaitMarker(admin, ns);
      assertThat(
              AuditLog.of(cluster.env()).sinceWithWatches(mark).stream()
                  .filter(e -> e.user().equals(user))
                  .map(AuditLog.Event::verbAndResource)
                  .filter(e -> e.equals("watch configauditreports")))
          .hasSize(1);
    } finally {
      account.close();
    }
  }

  /**
   * A client as {@code client} is, reading with {@link ApiServerJson#serialization()}, as the
   * aggregator program's does; it closes {@code client}.
   */
  public static KubernetesClient reading(KubernetesClient client) {
    KubernetesClient reading =
        new KubernetesClientBuilder()
            .withConfig(client.getConfiguration())
            .withKubernetesSerialization(ApiServerJson.serialization())
            .build();
    client.close();
    return reading;
  }

  private static ConfigMap configMap(KubernetesClient admin, String ns, String name) {
    return admin
        .configMaps()
        .inNamespace(ns)
        .resource(new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
  }

  /**
   * {@code json}, a report, with fields trivy's CRD keeps beside its {@code report}: a blob of 1 MB
   * ({@code [{},{},…]}, some 20 MB of heap as a generic object), arrays nested to {@code depth}
   * (the object counted), objects nested to four levels less (their mirror in managedFields reaches
   * {@code depth}) and a field name longer than Jackson reads by default.
   */
  private static String withDeepFieldsAndABlob(String json, int depth) {
    return json.replace(
        "}}]}}",
        "}}]},\"blob\":["
            + "{},".repeat(350_000)
            + "{}],\"deepArrays\":"
            + arrays(depth - 1)
            + ",\"deepObjects\":"
            + "{\"a\":".repeat(depth - 6)
            + "{}"
            + "}".repeat(depth - 6)
            + ",\""
            + "k".repeat(60_000)
            + "\":1}");
  }

  /** {@code levels} arrays, each the only element of the one around it. */
  private static String arrays(int levels) {
    return "[".repeat(levels) + "]".repeat(levels);
  }

  /** {@link #report} as JSON, ending with its checks' closing: {@code }}]}}}. */
  private static String rawReport(
      String ns, String name, ConfigMap scanned, Map<String, Object> check) {
    GenericKubernetesResource r = report(ns, name, scanned, "2030-01-01T00:00:00Z", List.of(check));
    Map<String, Object> report = new LinkedHashMap<>(reportOf(r));
    report.remove("checks");
    Map<String, Object> last = new LinkedHashMap<>(check);
    last.remove("scope");
    last.put("scope", Map.of("type", "Container", "value", "nginx"));
    report.put("checks", List.of(last));
    r.setAdditionalProperty("report", report);
    String json = Serialization.asJson(r);
    assertThat(json).endsWith("}}]}}");
    return json;
  }

  /** POSTs {@code json} as a ConfigAuditReport in {@code ns}, bypassing fabric8's serializer. */
  private static int post(KubernetesClient as, String ns, String json) throws Exception {
    HttpClient http = as.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(
                URI.create(
                    as.getMasterUrl()
                        + "apis/aquasecurity.github.io/v1alpha1/namespaces/"
                        + ns
                        + "/configauditreports"))
            .post("application/json", json)
            .build();
    HttpResponse<String> response = http.sendAsync(request, String.class).get(60, TimeUnit.SECONDS);
    return response.code();
  }

  /** trivy-operator's ConfigAuditReport CRD, installed and served. */
  public static void installTrivyCrd(KubernetesClient admin) {
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
  public static GenericKubernetesResource report(
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

  /** Waits, bounded, for a rejection Event in {@code ns} naming {@code field}. */
  public static void awaitRejection(KubernetesClient admin, String ns, String field) {
    Await.until(
        "a rejection Event names " + field,
        () ->
            admin.v1().events().inNamespace(ns).list().getItems().stream()
                .anyMatch(e -> e.getMessage() != null && e.getMessage().contains(field)),
        WAIT);
  }

  /** One failed check of a config audit report. */
  public static Map<String, Object> check(String id, String severity) {
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
