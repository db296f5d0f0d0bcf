package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.kyverno.KyvernoInput;
import dev.tally.report.merge.ClockRule;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The ledger with Kyverno's reports deleted after merging, driven directly: what a removal means,
 * and seeding from the reports in the cluster. The informer events it is handed are the ones the
 * feed hands over; the requests it makes go to the mock server.
 */
@EnableKubernetesMockClient(crud = true)
class KyvernoLedgerTest {
  KubernetesClient client;

  private final CountingMetrics metrics = new CountingMetrics();
  private int changes;
  private PartialReportLedger ledger;
  private ReportAggregator aggregator;

  private void begin() {
    Clock clock = Clock.fixed(Instant.ofEpochSecond(1_800_000_000L), ZoneOffset.UTC);
    ApiCalls calls =
        new ApiCalls(
            ApiBudget.of(1000, 1000),
            ControllerFixture.FAST_RETRIES,
            new Random(1),
            d -> {},
            metrics);
    ledger =
        new PartialReportLedger(
            new KyvernoReportsInput(),
            new IntermediateReports(client, calls, KyvernoInput.deleteAfterMerge(), metrics, clock),
            new RejectionEvents(client, calls, metrics, clock, false),
            metrics,
            () -> Timestamp.ofSeconds(1_800_000_000L),
            // the reports are stamped in 2030, ahead of this fixed clock: the clock rule has tests
            // of its own (ClockRuleTest, RealTenantTest)
            ClockRule.allowing(Duration.ofDays(36_500)),
            () -> changes++);
    aggregator = ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build();
    ledger.begin(aggregator);
  }

  @AfterEach
  void end() {
    if (ledger != null) {
      ledger.end();
    }
  }

  @Test
  void aReportRemovedBeforeItWasMergedStillSaysWhatItsLastStateSaid() {
    begin();
    ledger.removed(report("r-1", "7", "fail", 1_900_000_000L));

    assertThat(statuses()).containsExactly(Map.entry("require-labels/check", ResultStatus.FAIL));
    assertThat(changes).isPositive();
  }

  @Test
  void theRemovalOfAMergedReportIsNotTheDeletionOfItsResource() {
    begin();
    GenericKubernetesResource report = report("r-1", "7", "fail", 1_900_000_000L);
    ledger.upsert(report);
    int before = changes;

    ledger.removed(report); // Tally deleted it after the merge: the same version

    assertThat(statuses()).containsExactly(Map.entry("require-labels/check", ResultStatus.FAIL));
    assertThat(changes).as("nothing changed").isEqualTo(before);
  }

  @Test
  void theFirstListOfATermSeedsTheAggregatorAndALaterOneDoesNotSeedAgain() {
    begin();
    ledger.upsert(report("r-1", "7", "fail", 1_900_000_000L));
    List<AggregateReport> written = aggregator.aggregates();
    ledger.end();

    aggregator = ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build();
    ledger.begin(aggregator);
    ledger.observed(written);
    assertThat(aggregator.aggregates()).isEqualTo(written);

    // a later evaluation replaces the seed; listing the old report again does not bring it back
    ledger.upsert(report("r-2", "9", "pass", 1_900_000_060L));
    ledger.observed(written);
    assertThat(statuses()).containsExactly(Map.entry("require-labels/check", ResultStatus.PASS));
  }

  private Map<String, ResultStatus> statuses() {
    List<AggregateReport> reports = aggregator.aggregates();
    assertThat(reports).hasSize(1);
    return RealKyvernoTest.statuses(reports.get(0));
  }

  /** An admission report (uid known) about Pod default/web, uid u-1, of one result. */
  private static GenericKubernetesResource report(
      String name, String resourceVersion, String status, long seconds) {
    GenericKubernetesResource report =
        RealKyvernoTest.admissionReport(
            "default",
            name,
            "Pod",
            "",
            "v1",
            "web",
            "u-1",
            seconds,
            Map.of(
                "require-labels",
                List.of(RealKyvernoTest.result("require-labels", "check", status, seconds))));
    report.getMetadata().setResourceVersion(resourceVersion);
    return report;
  }
}
