package dev.tally.report.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.fabric8.metrics.Freshness;
import dev.tally.report.fabric8.metrics.RejectionReason;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.metrics.WriteVerb;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class MicrometerTallyMetricsTest {
  private static final ReportRef REF =
      new ReportRef(ReportKind.POLICY_REPORT, "shop", "tally-namespace-all");

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final MicrometerTallyMetrics metrics = new MicrometerTallyMetrics(registry);

  @Test
  void everySeriesExistsAtZeroBeforeItsFirstEvent() {
    for (RejectionReason reason : RejectionReason.values()) {
      assertThat(count("tally.partials.rejected", "reason", reason.metricName())).isZero();
    }
    for (WriteVerb verb : WriteVerb.values()) {
      assertThat(count("tally.writes", "verb", verb.metricName())).isZero();
      assertThat(count("tally.partials.published", "verb", verb.metricName())).isZero();
    }
    for (String code : List.of("429", "5xx", "connection", "other")) {
      assertThat(count("tally.retries", "code", code)).isZero();
    }
    assertThat(registry.get("tally.partials.applied").counter().count()).isZero();
    assertThat(registry.get("tally.conflicts").counter().count()).isZero();
    assertThat(registry.get("tally.writes.suppressed").counter().count()).isZero();
    assertThat(registry.get("tally.flush").timer().count()).isZero();
    assertThat(registry.get("tally.flush.changes").summary().count()).isZero();
    assertThat(registry.get("tally.resyncs").counter().count()).isZero();
    assertThat(registry.get("tally.resync.changes").counter().count()).isZero();
    assertThat(registry.get("tally.inputs.deleted").counter().count()).isZero();
    assertThat(registry.get("tally.inputs.expired").counter().count()).isZero();
    assertThat(registry.get("tally.inputs.waiting").gauge().value()).isZero();
    assertThat(registry.get("tally.input.oldest.age").gauge().value()).isZero();
    assertThat(registry.get("tally.flush.last.age").gauge().value()).isZero();
    assertThat(registry.get("tally.resync.last.age").gauge().value()).isZero();
  }

  @Test
  void freshnessIsGaugedInSecondsFromTheControllersSourceSharedByTheBindings() {
    MicrometerTallyMetrics otherBinding = new MicrometerTallyMetrics(registry);
    otherBinding.freshness(
        () ->
            new Freshness(Duration.ofMillis(1500), Duration.ofSeconds(20), Duration.ofMinutes(10)));

    assertThat(registry.get("tally.input.oldest.age").gauge().value()).isEqualTo(1.5);
    assertThat(registry.get("tally.flush.last.age").gauge().value()).isEqualTo(20);
    assertThat(registry.get("tally.resync.last.age").gauge().value()).isEqualTo(600);
    assertThat(registry.get("tally.input.oldest.age").gauge().getId().getBaseUnit())
        .isEqualTo("seconds");
  }

  @Test
  void kyvernoReportsAreCountedAndTheWaitingOnesGauged() {
    metrics.inputObjectDeleted();
    metrics.inputObjectDeleted();
    metrics.inputObjectExpired();
    metrics.inputObjectsWaiting(7);
    metrics.inputObjectsWaiting(3);

    assertThat(registry.get("tally.inputs.deleted").counter().count()).isEqualTo(2);
    assertThat(registry.get("tally.inputs.expired").counter().count()).isEqualTo(1);
    assertThat(registry.get("tally.inputs.waiting").gauge().value()).isEqualTo(3);
    assertThat(registry.get("tally.partials.applied").counter().count()).isZero();
  }

  @Test
  void failedAndSkippedLookupsOfKyvernosResourcesAreCountedByPurpose() {
    for (String lookup : List.of("adoption", "gone")) {
      assertThat(count("tally.lookups.failed", "lookup", lookup)).isZero();
      assertThat(count("tally.lookups.skipped", "lookup", lookup)).isZero();
    }
    metrics.resourceLookupFailed(TallyMetrics.Lookup.ADOPTION);
    metrics.resourceLookupFailed(TallyMetrics.Lookup.GONE_CHECK);
    metrics.resourceLookupFailed(TallyMetrics.Lookup.GONE_CHECK);
    metrics.resourceLookupSkipped(TallyMetrics.Lookup.ADOPTION);

    assertThat(count("tally.lookups.failed", "lookup", "adoption")).isEqualTo(1);
    assertThat(count("tally.lookups.failed", "lookup", "gone")).isEqualTo(2);
    assertThat(count("tally.lookups.skipped", "lookup", "adoption")).isEqualTo(1);
    assertThat(count("tally.lookups.skipped", "lookup", "gone")).isZero();
  }

  @Test
  void eachCallbackMovesOnlyItsOwnSeries() {
    metrics.partialApplied();
    metrics.partialApplied();
    metrics.partialRejected(RejectionReason.CAPACITY);
    metrics.partialRejected(RejectionReason.NAMESPACE);
    metrics.partialRejected(RejectionReason.NAMESPACE);
    metrics.partialPublished(WriteVerb.CREATE);
    metrics.partialPublished(WriteVerb.UPDATE);
    metrics.partialPublished(WriteVerb.UPDATE);
    metrics.write(WriteVerb.CREATE, REF);
    metrics.write(WriteVerb.UPDATE, REF);
    metrics.write(WriteVerb.UPDATE, REF);
    metrics.write(WriteVerb.DELETE, REF);
    metrics.conflict(REF);
    metrics.noOpWriteSuppressed();
    metrics.noOpWriteSuppressed();
    metrics.noOpWriteSuppressed();
    metrics.flushed(3, Duration.ofMillis(1500));
    metrics.flushed(0, Duration.ofMillis(250));
    metrics.resynced(2);
    metrics.resynced(5);

    assertThat(registry.get("tally.partials.applied").counter().count()).isEqualTo(2);
    assertThat(count("tally.partials.rejected", "reason", "capacity")).isEqualTo(1);
    assertThat(count("tally.partials.rejected", "reason", "namespace")).isEqualTo(2);
    assertThat(count("tally.partials.rejected", "reason", "invalid")).isZero();
    assertThat(count("tally.partials.published", "verb", "create")).isEqualTo(1);
    assertThat(count("tally.partials.published", "verb", "update")).isEqualTo(2);
    assertThat(count("tally.writes", "verb", "create")).isEqualTo(1);
    assertThat(count("tally.writes", "verb", "update")).isEqualTo(2);
    assertThat(count("tally.writes", "verb", "apply")).isZero();
    assertThat(count("tally.writes", "verb", "delete")).isEqualTo(1);
    assertThat(registry.get("tally.conflicts").counter().count()).isEqualTo(1);
    assertThat(registry.get("tally.writes.suppressed").counter().count()).isEqualTo(3);
    var flush = registry.get("tally.flush").timer();
    assertThat(flush.count()).isEqualTo(2);
    assertThat(flush.totalTime(TimeUnit.MILLISECONDS)).isCloseTo(1750, within(1e-6));
    assertThat(flush.max(TimeUnit.MILLISECONDS)).isCloseTo(1500, within(1e-6));
    var changes = registry.get("tally.flush.changes").summary();
    assertThat(changes.count()).isEqualTo(2);
    assertThat(changes.totalAmount()).isEqualTo(3);
    assertThat(registry.get("tally.resyncs").counter().count()).isEqualTo(2);
    assertThat(registry.get("tally.resync.changes").counter().count()).isEqualTo(7);
    // no retry happened
    for (String code : List.of("429", "5xx", "connection", "other")) {
      assertThat(count("tally.retries", "code", code)).isZero();
    }
  }

  @Test
  void capsRereadsAndSuppressedEventsAreCountedWithoutANamespaceTag() {
    for (String cap : MicrometerTallyMetrics.CAPS) {
      assertThat(count("tally.caps.reached", "cap", MicrometerTallyMetrics.capTag(cap)))
          .as(cap)
          .isZero();
    }
    int series = registry.getMeters().size();
    metrics.capacityReached("maxRegistersPerNamespace");
    metrics.capacityReached("maxRegistersPerNamespace");
    metrics.capacityReached("maxTombstones");
    metrics.capacityReached("someFutureCap");
    metrics.reread(3, 1);
    metrics.reread(2, 0);
    metrics.rejectionEventSuppressed("team-0");
    metrics.rejectionEventSuppressed("team-1");
    metrics.writeRefused(new ReportRef(ReportKind.POLICY_REPORT, "team-0", "r"), 422);
    metrics.writesInTrouble(3);

    assertThat(count("tally.caps.reached", "cap", "max_registers_per_namespace")).isEqualTo(2);
    assertThat(count("tally.caps.reached", "cap", "max_tombstones")).isEqualTo(1);
    assertThat(count("tally.caps.reached", "cap", "other")).isEqualTo(1);
    assertThat(registry.get("tally.rereads").counter().count()).isEqualTo(2);
    assertThat(registry.get("tally.reread.objects").counter().count()).isEqualTo(5);
    assertThat(registry.get("tally.rejections.events.suppressed").counter().count()).isEqualTo(2);
    assertThat(registry.get("tally.writes.refused").counter().count()).isEqualTo(1);
    assertThat(registry.get("tally.writes.in.trouble").gauge().value()).isEqualTo(3);
    assertThat(registry.getMeters()).as("no series per namespace or cap name").hasSize(series);
  }

  @Test
  void retriesAreTaggedByWhatFailed() {
    for (int status : new int[] {429, 500, 503, 599, 0, -1, 404, 409, 600}) {
      metrics.retry(status, Duration.ofMillis(100));
    }
    assertThat(count("tally.retries", "code", "429")).isEqualTo(1);
    assertThat(count("tally.retries", "code", "5xx")).isEqualTo(3);
    assertThat(count("tally.retries", "code", "connection")).isEqualTo(2);
    assertThat(count("tally.retries", "code", "other")).isEqualTo(3);
  }

  @Test
  void theNumberOfSeriesDoesNotGrowWithTheObjectsWritten() {
    int before = registry.getMeters().size();
    for (int i = 0; i < 50; i++) {
      ReportRef ref = new ReportRef(ReportKind.POLICY_REPORT, "ns-" + i, "report-" + i);
      metrics.write(WriteVerb.values()[i % WriteVerb.values().length], ref);
      metrics.conflict(ref);
      metrics.retry(400 + i, Duration.ofMillis(i));
      metrics.partialRejected(RejectionReason.values()[i % RejectionReason.values().length]);
      metrics.partialPublished(WriteVerb.values()[i % WriteVerb.values().length]);
      metrics.flushed(i, Duration.ofMillis(i));
      metrics.resynced(i);
    }
    assertThat(registry.getMeters()).hasSize(before);
    assertThat(
            count("tally.writes", "verb", "create")
                + count("tally.writes", "verb", "update")
                + count("tally.writes", "verb", "apply")
                + count("tally.writes", "verb", "delete"))
        .isEqualTo(50);
    Set<String> tagValues =
        registry.getMeters().stream()
            .flatMap(m -> m.getId().getTags().stream())
            .map(Tag::getValue)
            .collect(Collectors.toSet());
    assertThat(tagValues).noneMatch(v -> v.startsWith("ns-") || v.startsWith("report-"));
  }

  @Test
  void namesAndTagsFollowMicrometersConventions() {
    Set<String> names =
        registry.getMeters().stream().map(m -> m.getId().getName()).collect(Collectors.toSet());
    assertThat(names)
        .containsExactlyInAnyOrder(
            "tally.partials.applied",
            "tally.partials.rejected",
            "tally.partials.published",
            "tally.writes",
            "tally.conflicts",
            "tally.retries",
            "tally.writes.suppressed",
            "tally.flush",
            "tally.flush.changes",
            "tally.resyncs",
            "tally.resync.changes",
            "tally.inputs.deleted",
            "tally.inputs.expired",
            "tally.inputs.waiting",
            "tally.rereads",
            "tally.reread.objects",
            "tally.writes.refused",
            "tally.writes.in.trouble",
            "tally.caps.reached",
            "tally.rejections.events.suppressed",
            "tally.lookups.failed",
            "tally.lookups.skipped",
            "tally.input.oldest.age",
            "tally.flush.last.age",
            "tally.resync.last.age")
        .allMatch(n -> n.matches("tally(\\.[a-z]+)+"));
    for (Meter meter : registry.getMeters()) {
      assertThat(meter.getId().getDescription()).as(meter.getId().getName()).isNotBlank();
      assertThat(meter.getId().getTags())
          .as(meter.getId().getName())
          .allMatch(t -> Set.of("reason", "verb", "code", "cap", "lookup").contains(t.getKey()))
          .allMatch(t -> t.getValue().matches("[a-z0-9]+(_[a-z0-9]+)*"));
    }
  }

  @Test
  void commonTagsOfTheRegistryReachEveryMeter() {
    SimpleMeterRegistry tagged = new SimpleMeterRegistry();
    tagged.config().commonTags("cluster", "east");
    MicrometerTallyMetrics m = new MicrometerTallyMetrics(tagged);
    m.write(WriteVerb.APPLY, REF);
    assertThat(tagged.getMeters())
        .isNotEmpty()
        .allMatch(meter -> meter.getId().getTags().contains(Tag.of("cluster", "east")));
    assertThat(
            tagged
                .get("tally.writes")
                .tags(Tags.of("verb", "apply", "cluster", "east"))
                .counter()
                .count())
        .isEqualTo(1);
  }

  @Test
  void twoBindingsOfOneRegistryShareItsMeters() {
    MicrometerTallyMetrics publisherSide = new MicrometerTallyMetrics(registry);
    int meters = registry.getMeters().size();
    metrics.write(WriteVerb.CREATE, REF);
    publisherSide.write(WriteVerb.CREATE, REF);
    publisherSide.partialPublished(WriteVerb.UPDATE);
    assertThat(registry.getMeters()).hasSize(meters);
    assertThat(count("tally.writes", "verb", "create")).isEqualTo(2);
    assertThat(count("tally.partials.published", "verb", "update")).isEqualTo(1);
  }

  private double count(String name, String tag, String value) {
    return registry.get(name).tag(tag, value).counter().count();
  }
}
