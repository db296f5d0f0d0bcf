package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.WireSummary;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The snippet of report-fabric8/README.md, compiled and run against the mock API server. Its
 * imports are the README's, and its client is built as the README advises (no fabric8 retries).
 */
@EnableKubernetesMockClient(crud = true)
class ReadmeSnippetTest {
  KubernetesMockServer server;
  KubernetesClient client;

  @BeforeEach
  void setUp() {
    // as the README advises: no fabric8 retries underneath Tally's
    client = MockCluster.client(server);
  }

  @AfterEach
  void tearDown() {
    MockCluster.close(client);
  }

  @Test
  void wiringTheAdapterIntoAnOperator() throws Exception {
    String podName = "tally-0";
    TallyMetrics myMetrics = TallyMetrics.NONE;
    var pod = MockCluster.pod(client, "shop", "web-0");

    // --- README snippet start
    TallyResources.installCrds(client); // or kubectl apply the YAML shipped in the jar

    // one budget for every request Tally makes in this process
    ApiBudget budget = ApiBudget.of(20, 40);

    // the aggregator side: one replica at a time rebuilds, aggregates and writes
    AggregatorController controller =
        AggregatorController.builder(client)
            .aggregator(
                () ->
                    ReportAggregator.builder()
                        .grouping(Grouping.perNamespace())
                        .format(ReportFormat.WGPOLICY)
                        .build())
            .budget(budget)
            .leaderElection(LeaderElectionSettings.of("default", "tally-aggregator", podName))
            .metrics(myMetrics)
            .build()
            .start();

    // the producer side: an admission webhook, a scanner
    PartialReportPublisher publisher =
        PartialReportPublisher.builder(client).budget(budget).build();
    publisher.adoptEvery(Duration.ofSeconds(30)); // owners for reports written at CREATE

    publisher
        .publish(
            PartialReport.builder()
                .producer("admission")
                .subject(Subject.of("v1", "Pod", "shop", "web-0", pod.getMetadata().getUid()))
                .results(
                    List.of(
                        Result.builder()
                            .source("kyverno")
                            .policy("require-labels")
                            .rule("check-team")
                            .status(ResultStatus.FAIL)
                            .message("label 'team' is required")
                            .build()))
                .observedAt(Timestamp.ofSeconds(1_700_000_000))
                .build())
        .get(2, TimeUnit.MINUTES); // written, or failed with the reason: longer than the retries
    // --- README snippet end

    try {
      Await.until(
          "the PolicyReport is written",
          () ->
              client
                      .resources(PolicyReportResource.class)
                      .inNamespace("shop")
                      .withName("tally-namespace-all")
                      .get()
                  != null);
      var report =
          client
              .resources(PolicyReportResource.class)
              .inNamespace("shop")
              .withName("tally-namespace-all")
              .get();
      assertThat(report.getSummary()).isEqualTo(new WireSummary(0L, 1L, 0L, 0L, 0L));
    } finally {
      publisher.close();
      controller.close();
    }
  }
}
