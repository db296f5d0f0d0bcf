package dev.tally.report.demo;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.TallyResources;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.metrics.WriteVerb;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The demo's first chapter: the CRDs are installed and the aggregator starts.
 *
 * <p>{@link Demo} runs the chapters in order; this is the setup before any pod exists.
 */
final class DemoSetup {
  private DemoSetup() {}

  /**
   * Tally's CRDs from the jar, and, unless the cluster has the official ones, permissive
   * wgpolicyk8s.io kinds for it to write.
   */
  static void installCrds(KubernetesClient client, boolean hasReportCrds) {
    TallyResources.installCrds(client);
    if (hasReportCrds) {
      return;
    }
    for (String[] kind :
        new String[][] {
          {"PolicyReport", "policyreports", "Namespaced", "polr"},
          {"ClusterPolicyReport", "clusterpolicyreports", "Cluster", "cpolr"}
        }) {
      client
          .resource(
              new CustomResourceDefinitionBuilder()
                  .withNewMetadata()
                  .withName(kind[1] + ".wgpolicyk8s.io")
                  .endMetadata()
                  .withNewSpec()
                  .withGroup("wgpolicyk8s.io")
                  .withScope(kind[2])
                  .withNewNames()
                  .withKind(kind[0])
                  .withPlural(kind[1])
                  .withShortNames(kind[3])
                  .endNames()
                  .addNewVersion()
                  .withName("v1alpha2")
                  .withServed(true)
                  .withStorage(true)
                  .withNewSchema()
                  .withNewOpenAPIV3Schema()
                  .withType("object")
                  .withXKubernetesPreserveUnknownFields(true)
                  .endOpenAPIV3Schema()
                  .endSchema()
                  .endVersion()
                  .endSpec()
                  .build())
          .create();
    }
  }

  /**
   * The aggregator, per namespace, 250 results a partition, counting Tally's writes by verb in
   * {@code tallyWrites}.
   */
  static AggregatorController startAggregator(
      KubernetesClient client, ApiBudget budget, Map<String, LongAdder> tallyWrites) {
    TallyMetrics metrics =
        new TallyMetrics() {
          @Override
          public void write(WriteVerb verb, dev.tally.report.api.ReportRef ref) {
            tallyWrites.computeIfAbsent(verb.metricName(), v -> new LongAdder()).increment();
          }
        };
    return AggregatorController.builder(client)
        .aggregator(
            () ->
                ReportAggregator.builder()
                    .grouping(Grouping.perNamespace())
                    .limits(ReportLimits.defaults().withMaxResults(250))
                    .build())
        .budget(budget)
        .metrics(metrics)
        .flushWindow(Duration.ofSeconds(1))
        .build()
        .start();
  }
}
