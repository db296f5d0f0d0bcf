package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.input.InputContext;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.kyverno.KyvernoInput;
import dev.tally.report.kyverno.RealKyvernoTest;
import dev.tally.report.merge.publish.ClockRule;
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
import java.util.function.Supplier;
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
  private InputLedger ledger;
  private ReportAggregator aggregator;

  private void begin() {
    begin(KyvernoInput.deleteAfterMerge());
  }

  private void begin(KyvernoInput settings) {
    Clock clock = Clock.fixed(Instant.ofEpochSecond(1_800_000_000L), ZoneOffset.UTC);
    ApiCalls calls =
        new ApiCalls(
            ApiBudget.of(1000, 1000),
            ControllerFixture.FAST_RETRIES,
            new Random(1),
            d -> {},
            metrics);
    // the reports are stamped in 2030, ahead of this fixed clock: the clock rule has tests of its
    // own (ClockRuleTest, RealTenantTest)
    ClockRule clockRule = ClockRule.allowing(Duration.ofDays(36_500));
    Supplier<Timestamp> now = () -> Timestamp.ofSeconds(1_800_000_000L);
    ledger =
        new InputLedger(
            settings,
            settings.services(new InputContext(client, calls, metrics, clock, clockRule, now)),
            null,
            new RejectionEvents(client, calls, metrics, clock, false),
            new InformerStores(1_000, 20_000),
            metrics,
            now,
            clockRule,
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

  /**
   * Reports awaiting adoption are held (with a copy of the object) and looked for with a GET each
   * retry: a namespace flooding reports about objects that never appear is refused past its cap,
   * and all namespaces together past theirs, with a capacity rejection naming the cap.
   */
  @Test
  void reportsAwaitingAdoptionAreCappedPerNamespaceAndInAll() {
    begin(KyvernoInput.deleteAfterMerge().withMaxAwaitingAdoption(3, 5));
    for (int i = 0; i < 5; i++) {
      ledger.upsert(awaiting("default", "flood-" + i));
    }
    assertThat(metrics.waiting).as("held for adoption").isEqualTo(3);
    assertThat(metrics.rejected.get("capacity")).isEqualTo(2);
    assertThat(metrics.capsReached).containsEntry("maxAwaitingAdoptionPerNamespace", 2);

    for (int i = 0; i < 3; i++) {
      ledger.upsert(awaiting("quiet", "q-" + i));
    }
    assertThat(metrics.waiting).isEqualTo(5);
    assertThat(metrics.capsReached).containsEntry("maxAwaitingAdoption", 1);

    // a report already waiting may change: it is not one more
    GenericKubernetesResource again = awaiting("default", "flood-0");
    again.getMetadata().setResourceVersion("2");
    ledger.upsert(again);
    assertThat(metrics.waiting).isEqualTo(5);
    assertThat(metrics.rejected.get("capacity")).isEqualTo(3);

    // delivered again at the same version (the informer's cache, then its event): handled once
    ledger.upsert(awaiting("default", "flood-4"));
    assertThat(metrics.rejected.get("capacity")).isEqualTo(3);
    // room again: the next periodic re-list tries what was refused at a cap
    ledger.removed(awaiting("default", "flood-1"));
    ledger.removed(awaiting("quiet", "q-0"));
    ledger.retryRefused();
    ledger.upsert(awaiting("default", "flood-4"));
    assertThat(metrics.waiting).isEqualTo(4);
    assertThat(metrics.rejected.get("capacity")).isEqualTo(3);
  }

  /**
   * The cap in all is shared fairly (docs/DESIGN.md §9.2, "Fair shares"): once two namespaces fill
   * it, a third namespace's first report is still held (before, it was refused), and a namespace
   * over its share is refused, naming the cap in all.
   */
  @Test
  void reportsAwaitingAdoptionShareTheCapInAllFairly() {
    begin(KyvernoInput.deleteAfterMerge().withMaxAwaitingAdoption(3, 4));
    for (int i = 0; i < 3; i++) {
      ledger.upsert(awaiting("default", "flood-" + i));
    }
    ledger.upsert(awaiting("quiet", "q-0"));
    assertThat(metrics.waiting).as("the cap in all reached").isEqualTo(4);

    ledger.upsert(awaiting("late", "l-0"));
    assertThat(metrics.waiting).as("within its share (4 / 3): held past the cap").isEqualTo(5);
    assertThat(metrics.rejected.get("capacity")).isNull();

    ledger.upsert(awaiting("quiet", "q-1"));
    assertThat(metrics.waiting).isEqualTo(5);
    assertThat(metrics.capsReached).containsEntry("maxAwaitingAdoption", 1);
  }

  /**
   * Merged reports wait in the cluster until the write after them lets them be deleted, each held
   * by the ledger meanwhile: at the cap of one namespace, or of all, no more is merged (a capacity
   * rejection naming the cap; it stays in the cluster) until deletes catch up, and the next
   * periodic re-list merges it. Before the cap, a namespace whose reports could not be deleted grew
   * the map without bound.
   */
  @Test
  void mergedReportsAwaitingDeleteAreCappedPerNamespaceAndInAll() {
    begin(KyvernoInput.deleteAfterMerge().withMaxAwaitingDelete(2, 3));
    for (int i = 0; i < 3; i++) {
      ledger.upsert(about("default", "d-" + i, "u-d" + i));
    }
    assertThat(metrics.waiting).as("merged, awaiting delete").isEqualTo(2);
    assertThat(metrics.capsReached).containsEntry("maxAwaitingDeletePerNamespace", 1);
    assertThat(metrics.rejected).containsEntry("capacity", 1);
    assertThat(aggregator.aggregates()).as("the refused one changed nothing").hasSize(2);

    for (int i = 0; i < 2; i++) {
      ledger.upsert(about("quiet", "q-" + i, "u-q" + i));
    }
    assertThat(metrics.waiting).isEqualTo(3);
    assertThat(metrics.capsReached).containsEntry("maxAwaitingDelete", 1);
    // a merged report changing again is not one more
    GenericKubernetesResource again = about("quiet", "q-0", "u-q0");
    again.getMetadata().setResourceVersion("2");
    ledger.upsert(again);
    assertThat(metrics.waiting).isEqualTo(3);
    // a report removed before it was merged waits for no delete: its last state is applied
    ledger.removed(about("quiet", "q-gone", "u-gone"));
    assertThat(aggregator.aggregates()).hasSize(4);
    assertThat(metrics.waiting).isEqualTo(3);

    // the write after them succeeded: they are deleted (already gone from this mock: 404), and
    // the next periodic re-list merges what waited in the cluster
    ledger.written(ChangeSet.EMPTY, java.util.Set.of());
    assertThat(metrics.waiting).isZero();
    ledger.retryRefused();
    ledger.upsert(about("default", "d-2", "u-d2"));
    ledger.upsert(about("quiet", "q-1", "u-q1"));
    assertThat(metrics.waiting).isEqualTo(2);
    assertThat(aggregator.aggregates()).hasSize(6);
  }

  /**
   * A write that waits to be tried again in one namespace keeps that namespace's merged reports
   * (the only record of what is not written yet) and no other's: before, a write in trouble
   * anywhere kept every namespace's, and once the cap of merged reports awaiting delete filled,
   * merging stopped in all of them.
   */
  @Test
  void mergedReportsWaitOnlyInTheNamespaceWhoseWriteIsInTrouble() {
    begin();
    ledger.upsert(about("troubled", "t-0", "u-t0"));
    ledger.upsert(about("quiet", "q-0", "u-q0"));
    ledger.upsert(about("other", "o-0", "u-o0"));
    assertThat(metrics.waiting).isEqualTo(3);

    ledger.written(ChangeSet.EMPTY, java.util.Set.of("troubled"));
    assertThat(metrics.waiting).as("only the troubled namespace's report waits").isEqualTo(1);
    assertThat(metrics.deleted).isEqualTo(2);

    ledger.written(ChangeSet.EMPTY, java.util.Set.of());
    assertThat(metrics.waiting).as("its write done, it is deleted too").isZero();
  }

  private static GenericKubernetesResource about(String namespace, String name, String uid) {
    long seconds = 1_800_000_000L;
    GenericKubernetesResource report =
        RealKyvernoTest.admissionReport(
            namespace,
            name,
            "Pod",
            "",
            "v1",
            "pod-" + uid,
            uid,
            seconds,
            Map.of(
                "require-labels",
                List.of(RealKyvernoTest.result("require-labels", "check", "fail", seconds))));
    report.getMetadata().setResourceVersion("1");
    return report;
  }

  @Test
  void tombstonesForgottenAtTheirCapAreCounted() {
    begin(KyvernoInput.keep());
    ledger.end();
    aggregator =
        ReportAggregator.builder()
            .grouping(Grouping.kyvernoPerResource())
            .caps(dev.tally.report.api.InputCaps.defaults().withMaxTombstones(1))
            .build();
    ledger.begin(aggregator);
    List<GenericKubernetesResource> reports = List.of(about("r-1", "u-1"), about("r-2", "u-2"));
    reports.forEach(ledger::upsert);
    reports.forEach(ledger::removed); // KEEP: the last report about a resource gone, so is it

    assertThat(aggregator.held().tombstones()).isEqualTo(1);
    assertThat(metrics.capsReached).containsEntry("maxTombstones", 1);
  }

  private static GenericKubernetesResource about(String name, String uid) {
    long seconds = 1_800_000_000L;
    GenericKubernetesResource report =
        RealKyvernoTest.admissionReport(
            "default",
            name,
            "Pod",
            "",
            "v1",
            "pod-" + uid,
            uid,
            seconds,
            Map.of(
                "require-labels",
                List.of(RealKyvernoTest.result("require-labels", "check", "fail", seconds))));
    report.getMetadata().setResourceVersion("1");
    return report;
  }

  private static GenericKubernetesResource awaiting(String namespace, String name) {
    long seconds = 1_800_000_000L;
    GenericKubernetesResource report =
        RealKyvernoTest.admissionReport(
            namespace,
            name,
            "Pod",
            "",
            "v1",
            "new-" + name,
            null,
            seconds,
            Map.of(
                "require-labels",
                List.of(RealKyvernoTest.result("require-labels", "check", "fail", seconds))));
    report.getMetadata().setResourceVersion("1");
    return report;
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
