package dev.tally.report.trivy;

import static dev.tally.report.fabric8.RealServer.auditEventsOnceMarked;
import static dev.tally.report.fabric8.RealServer.auditMark;
import static dev.tally.report.fabric8.RealServer.awaitOnlyOwnPartials;
import static dev.tally.report.fabric8.RealServer.installCrds;
import static dev.tally.report.fabric8.RealServer.installRbac;
import static dev.tally.report.fabric8.RealServer.publishFailure;
import static dev.tally.report.fabric8.RealServer.subject;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.RealServer;
import dev.tally.report.fabric8.client.ApiServerJson;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.AuditLog;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two releases of different inputs in one cluster, both per namespace (docs/DESIGN.md §6.8), on the
 * real control plane: an aggregator of Tally's partial reports and one of trivy-operator's config
 * audit reports, each as a service account bound to its shipped role alone. Each writes its own
 * report into the namespace, under its own name; across resyncs of both, a change of one input's
 * results and the other's report's deletion, neither report is written by the other aggregator
 * (their resourceVersions, and the API server's audit log, say so).
 */
@ExtendWith(RealKubernetes.class)
class RealServerTwoInputsTest {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String TALLYS = "tally-namespace-all";
  private static final String TRIVYS = "tally-trivy--namespace-all";

  @Test
  void aTallyAndATrivyAggregatorPerNamespaceNeverWriteEachOthersReports(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installRbac(admin);
    installTrivy(admin);
    String ns = cluster.namespace();
    awaitOnlyOwnPartials(admin, ns);
    KubernetesClient tallyAccount = cluster.serviceAccount("aggregator", "tally-aggregator");
    Subject pod = subject(admin, ns, "web-0");
    ConfigMap scanned =
        admin
            .configMaps()
            .inNamespace(ns)
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName("app-config")
                    .endMetadata()
                    .build())
            .create();
    long mark = auditMark(cluster);

    // the trivy input reads with the serialization that reads every object the server stores
    try (KubernetesClient trivyAccount =
            reading(cluster.serviceAccount("trivy-aggregator", "tally-trivy-aggregator"));
        PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build();
        AggregatorController tally =
            AggregatorController.builder(tallyAccount)
                .aggregator(() -> ReportAggregator.builder().build())
                .flushWindow(Duration.ofMillis(100))
                .build()
                .start();
        AggregatorController trivy =
            AggregatorController.builder(trivyAccount)
                .aggregator(() -> ReportAggregator.builder().input("trivy").build())
                .input(new TrivyInput())
                .flushWindow(Duration.ofMillis(100))
                .build()
                .start()) {
      Await.until("both have rebuilt", () -> tally.isRebuilt() && trivy.isRebuilt(), WAIT);
      publishFailure(publisher, "admission", pod, "require-labels");
      admin
          .genericKubernetesResources(TrivyInput.CONFIG_AUDIT_REPORTS)
          .inNamespace(ns)
          .resource(
              configAudit(
                  ns,
                  scanned,
                  "2024-01-01T00:00:00Z",
                  List.of(check("KSV01010", "HIGH"), check("KSV01011", "LOW"))))
          .create();
      Await.until(
          "each input's results are in its own report",
          () ->
              rules(admin, ns)
                  .equals(
                      Map.of(
                          TALLYS, List.of("kyverno/check"),
                          TRIVYS, List.of("trivy/KSV01010", "trivy/KSV01011"))),
          WAIT);
      settle(tally, trivy);
      Map<String, String> labels = report(admin, ns, TRIVYS).getMetadata().getLabels();
      assertThat(labels)
          .containsEntry(WireNames.INPUT_LABEL, "trivy")
          .containsEntry(WireNames.GROUPING_LABEL, "namespace");
      assertThat(report(admin, ns, TALLYS).getMetadata().getLabels())
          .doesNotContainKey(WireNames.INPUT_LABEL);
      Map<String, String> written = versions(admin, ns);

      // resyncs of both, interleaved: each finds its own report as it wrote it
      for (AggregatorController c : List.of(tally, trivy, trivy, tally)) {
        c.resyncNow().get(60, TimeUnit.SECONDS);
      }
      assertThat(versions(admin, ns)).isEqualTo(written);

      // trivy's rescan no longer lists a fixed check: its report is rewritten, tally's is not
      admin
          .genericKubernetesResources(TrivyInput.CONFIG_AUDIT_REPORTS)
          .inNamespace(ns)
          .withName("configmap-app-config")
          .edit(
              r -> {
                @SuppressWarnings("unchecked")
                Map<String, Object> report =
                    (Map<String, Object>) r.getAdditionalProperties().get("report");
                report.put("updateTimestamp", "2024-01-01T01:00:00Z");
                report.put("checks", List.of(check("KSV01011", "LOW")));
                return r;
              });
      Await.until(
          "trivy's fixed check is retracted",
          () -> rules(admin, ns).getOrDefault(TRIVYS, List.of()).equals(List.of("trivy/KSV01011")),
          WAIT);
      settle(tally, trivy);
      for (AggregatorController c : List.of(trivy, tally)) {
        c.resyncNow().get(60, TimeUnit.SECONDS);
      }
      Map<String, String> rescanned = versions(admin, ns);
      assertThat(rescanned.get(TALLYS)).isEqualTo(written.get(TALLYS));
      assertThat(rescanned.get(TRIVYS)).isNotEqualTo(written.get(TRIVYS));
      assertThat(rules(admin, ns).get(TALLYS)).containsExactly("kyverno/check");

      // the Pod goes, its partial report with it: tally's report is deleted, trivy's stays
      admin.pods().inNamespace(ns).withName("web-0").delete();
      Await.until(
          "tally's report is deleted", () -> !versions(admin, ns).containsKey(TALLYS), WAIT);
      for (AggregatorController c : List.of(tally, trivy, tally)) {
        c.resyncNow().get(60, TimeUnit.SECONDS);
      }
      assertThat(versions(admin, ns)).isEqualTo(Map.of(TRIVYS, rescanned.get(TRIVYS)));
    }

    // every write of each aggregator's account to a report of the namespace named its own: the
    // marker, requested after them all, shows the log holds them
    Map<String, Set<String>> writtenBy = new HashMap<>();
    for (AuditLog.Event e : auditEventsOnceMarked(cluster, mark)) {
      if (RealServer.WRITE_VERBS.contains(e.verb())
          && e.resource().equals("policyreports")
          && e.namespace().equals(ns)
          && !e.name().isEmpty()) {
        writtenBy.computeIfAbsent(e.user(), u -> new java.util.TreeSet<>()).add(e.name());
      }
    }
    assertThat(writtenBy)
        .containsEntry("system:serviceaccount:" + ns + ":aggregator", Set.of(TALLYS))
        .containsEntry("system:serviceaccount:" + ns + ":trivy-aggregator", Set.of(TRIVYS));
  }

  /** A client as {@code client} is, reading with {@link ApiServerJson#serialization()}. */
  private static KubernetesClient reading(KubernetesClient client) {
    KubernetesClient reading =
        new KubernetesClientBuilder()
            .withConfig(client.getConfiguration())
            .withKubernetesSerialization(ApiServerJson.serialization())
            .build();
    client.close();
    return reading;
  }

  /** Flushes both now: what either had pending is written when this returns. */
  private static void settle(AggregatorController... controllers) throws Exception {
    for (AggregatorController c : controllers) {
      c.flushNow().get(60, TimeUnit.SECONDS);
    }
  }

  private static PolicyReportResource report(KubernetesClient admin, String ns, String name) {
    return admin.resources(PolicyReportResource.class).inNamespace(ns).withName(name).get();
  }

  /** The resourceVersion of each PolicyReport of the namespace, by name. */
  private static Map<String, String> versions(KubernetesClient admin, String ns) {
    Map<String, String> versions = new TreeMap<>();
    for (PolicyReportResource r :
        admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems()) {
      versions.put(r.getMetadata().getName(), r.getMetadata().getResourceVersion());
    }
    return versions;
  }

  /** The {@code source/rule} of each result of each PolicyReport of the namespace, by name. */
  private static Map<String, List<String>> rules(KubernetesClient admin, String ns) {
    Map<String, List<String>> rules = new TreeMap<>();
    for (PolicyReportResource r :
        admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems()) {
      AggregateReport report = ReportCodec.decode(r);
      rules.put(
          report.ref().name(),
          report.results().stream().map(RealServerTwoInputsTest::rule).sorted().toList());
    }
    return rules;
  }

  private static String rule(Result r) {
    return r.source() + "/" + r.rule();
  }

  /** trivy-operator's CRD, as TrivyInputRealServerTest installs it, and the trivy input's roles. */
  private static void installTrivy(KubernetesClient admin) {
    TrivyInputRealServerTest.installTrivyCrd(admin);
    for (HasMetadata role :
        admin
            .load(new ByteArrayInputStream(TrivyInput.rbacYaml().getBytes(StandardCharsets.UTF_8)))
            .items()) {
      admin.resource(role).createOr(existing -> existing.update());
    }
  }

  /** A config audit report about {@code scanned}, as trivy-operator writes one: owned by it. */
  private static GenericKubernetesResource configAudit(
      String ns, ConfigMap scanned, String updated, List<Map<String, Object>> checks) {
    return TrivyInputRealServerTest.report(
        ns, "configmap-" + scanned.getMetadata().getName(), scanned, updated, checks);
  }

  private static Map<String, Object> check(String id, String severity) {
    return TrivyInputRealServerTest.check(id, severity);
  }
}
