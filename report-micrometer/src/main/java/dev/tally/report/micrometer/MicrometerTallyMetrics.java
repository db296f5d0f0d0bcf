package dev.tally.report.micrometer;

import dev.tally.report.api.ReportRef;
import dev.tally.report.fabric8.metrics.Freshness;
import dev.tally.report.fabric8.metrics.RejectionReason;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.metrics.WriteVerb;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * {@link TallyMetrics} as Micrometer meters. Names are dot-separated and lower-case, as Micrometer
 * wants them (each registry renders them its own way: Prometheus shows {@code tally.writes} as
 * {@code tally_writes_total}):
 *
 * <table>
 *   <caption>The meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>counts</th></tr>
 *   <tr><td>{@value #PARTIALS_APPLIED}</td><td>counter</td><td></td>
 *       <td>partial reports the aggregator accepted</td></tr>
 *   <tr><td>{@value #PARTIALS_REJECTED}</td><td>counter</td>
 *       <td>{@code reason}: {@code invalid}, {@code namespace}, {@code capacity}</td>
 *       <td>partial reports refused (they changed nothing)</td></tr>
 *   <tr><td>{@value #PARTIALS_PUBLISHED}</td><td>counter</td>
 *       <td>{@code verb}: {@code create}, {@code update} (the only ones a producer uses)</td>
 *       <td>partial reports a producer wrote</td></tr>
 *   <tr><td>{@value #WRITES}</td><td>counter</td>
 *       <td>{@code verb}: {@code create}, {@code update}, {@code apply}, {@code delete}</td>
 *       <td>writes of aggregate reports</td></tr>
 *   <tr><td>{@value #CONFLICTS}</td><td>counter</td><td></td>
 *       <td>writes that met a conflict (409) or a vanished object, followed by a re-read</td></tr>
 *   <tr><td>{@value #RETRIES}</td><td>counter</td>
 *       <td>{@code code}: {@code 429}, {@code 5xx}, {@code connection}, {@code other}</td>
 *       <td>requests retried, by what failed</td></tr>
 *   <tr><td>{@value #WRITES_SUPPRESSED}</td><td>counter</td><td></td>
 *       <td>writes skipped because the object already held the desired content</td></tr>
 *   <tr><td>{@value #FLUSH}</td><td>timer</td><td></td>
 *       <td>flushes and how long they took, writes included</td></tr>
 *   <tr><td>{@value #FLUSH_CHANGES}</td><td>distribution summary</td><td></td>
 *       <td>changes (creates, updates, deletes) each flush wrote</td></tr>
 *   <tr><td>{@value #RESYNCS}</td><td>counter</td><td></td>
 *       <td>rebuilds of the controller's view (start, Lease won, conflict, periodic), counted once the writes of what they found are done</td></tr>
 *   <tr><td>{@value #RESYNC_CHANGES}</td><td>counter</td><td></td>
 *       <td>changes the rebuilds found</td></tr>
 *   <tr><td>{@value #REREADS}</td><td>counter</td><td></td>
 *       <td>re-reads of the objects whose writes met trouble, one GET each (no LIST)</td></tr>
 *   <tr><td>{@value #REREAD_OBJECTS}</td><td>counter</td><td></td>
 *       <td>objects those re-reads read</td></tr>
 *   <tr><td>{@value #WRITES_REFUSED}</td><td>counter</td><td></td>
 *       <td>aggregates whose content the API server refused for good (400, 413, 422), once per
 *       content: parked until their content changes</td></tr>
 *   <tr><td>{@value #WRITES_IN_TROUBLE}</td><td>gauge</td><td></td>
 *       <td>aggregates waiting to be written again after a failure that may heal or a conflict,
 *       each after its own backoff</td></tr>
 *   <tr><td>{@value #CAPS_REACHED}</td><td>counter</td>
 *       <td>{@code cap}: a name of {@link #CAPS} in snake case ({@code max_tombstones}), or
 *       {@code other}</td>
 *       <td>objects refused at a cap, and tombstones forgotten early at the tombstone cap</td></tr>
 *   <tr><td>{@value #EVENTS_SUPPRESSED}</td><td>counter</td><td></td>
 *       <td>rejections not recorded as Events: their namespace used up its share</td></tr>
 *   <tr><td>{@value #LOOKUPS_FAILED}</td><td>counter</td>
 *       <td>{@code lookup}: {@code adoption}, {@code gone}</td>
 *       <td>reads of a resource a Kyverno report names that failed (asked again later)</td></tr>
 *   <tr><td>{@value #LOOKUPS_SKIPPED}</td><td>counter</td>
 *       <td>{@code lookup}: {@code adoption}, {@code gone}</td>
 *       <td>reads not made: the kind is not among the adoption kinds</td></tr>
 *   <tr><td>{@value #OLDEST_INPUT_AGE}</td><td>gauge (seconds)</td><td></td>
 *       <td>how long the oldest input not yet written has waited ({@link
 *       Freshness#oldestUnmergedInput()})</td></tr>
 *   <tr><td>{@value #LAST_FLUSH_AGE}</td><td>gauge (seconds)</td><td></td>
 *       <td>time since the last flush whose writes all succeeded</td></tr>
 *   <tr><td>{@value #LAST_RESYNC_AGE}</td><td>gauge (seconds)</td><td></td>
 *       <td>time since the last resync that listed, diffed and wrote</td></tr>
 * </table>
 *
 * <p>The three freshness gauges read the controller that reports to this registry ({@link
 * #freshness}); they are 0 before one is built and on a replica that does not lead. Bindings of one
 * registry share them.
 *
 * <p>Cardinality stays low whatever the cluster holds: tags take only the few values above, never
 * an object's name or namespace. Every series is registered at construction, so each shows 0 before
 * its first event (rates and alerts need no "absent" special case). Tags common to every meter (an
 * application, a cluster) belong to the registry: {@code registry.config().commonTags(...)}.
 *
 * <p>Thread-safe and cheap: each callback increments a meter it already holds.
 */
public final class MicrometerTallyMetrics implements TallyMetrics, TallyMeterNames {
  /** Where each registry's freshness gauges read, shared by the bindings of one registry. */
  private static final Map<MeterRegistry, AtomicReference<Supplier<Freshness>>> SOURCES =
      Collections.synchronizedMap(new WeakHashMap<>());

  private final Counter applied;
  private final Map<RejectionReason, Counter> rejected = new EnumMap<>(RejectionReason.class);
  private final Map<WriteVerb, Counter> published = new EnumMap<>(WriteVerb.class);
  private final Map<WriteVerb, Counter> writes = new EnumMap<>(WriteVerb.class);
  private final Counter conflicts;
  private final Counter writesRefused;
  private final AtomicInteger writesInTrouble = new AtomicInteger();
  private final Map<RetryCode, Counter> retries = new EnumMap<>(RetryCode.class);
  private final Counter suppressed;
  private final Timer flush;
  private final DistributionSummary flushChanges;
  private final Counter resyncs;
  private final Counter resyncChanges;
  private final Counter kyvernoDeleted;
  private final Counter kyvernoExpired;
  private final AtomicInteger inputsWaiting = new AtomicInteger();
  private final Counter rereads;
  private final Counter rereadObjects;
  private final Map<String, Counter> capsReached = new HashMap<>();
  private final Counter eventsSuppressed;
  private final Map<TallyMetrics.Lookup, Counter> lookupsFailed =
      new EnumMap<>(TallyMetrics.Lookup.class);
  private final Map<TallyMetrics.Lookup, Counter> lookupsSkipped =
      new EnumMap<>(TallyMetrics.Lookup.class);
  private final AtomicReference<Supplier<Freshness>> freshness;

  /** Registers every meter in {@code registry} at once. */
  public MicrometerTallyMetrics(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    applied =
        Counter.builder(PARTIALS_APPLIED)
            .description("Partial reports the aggregator accepted.")
            .register(registry);
    for (RejectionReason reason : RejectionReason.values()) {
      rejected.put(
          reason,
          Counter.builder(PARTIALS_REJECTED)
              .description("Partial reports refused (they changed nothing), by reason.")
              .tag(TAG_REASON, reason.metricName())
              .register(registry));
    }
    for (WriteVerb verb : WriteVerb.values()) {
      published.put(
          verb,
          Counter.builder(PARTIALS_PUBLISHED)
              .description("Partial reports a producer wrote, by verb.")
              .tag(TAG_VERB, verb.metricName())
              .register(registry));
    }
    for (WriteVerb verb : WriteVerb.values()) {
      writes.put(
          verb,
          Counter.builder(WRITES)
              .description("Writes of aggregate reports, by verb.")
              .tag(TAG_VERB, verb.metricName())
              .register(registry));
    }
    conflicts =
        Counter.builder(CONFLICTS)
            .description(
                "Writes that met a conflict (409) or a vanished object, followed by a re-read.")
            .register(registry);
    writesRefused =
        Counter.builder(WRITES_REFUSED)
            .description(
                "Aggregates whose content the API server refused for good (400, 413, 422), once"
                    + " per content; not written again until their content changes.")
            .register(registry);
    Gauge.builder(WRITES_IN_TROUBLE, writesInTrouble, AtomicInteger::get)
        .description(
            "Aggregates waiting to be written again after a failure that may heal or a conflict,"
                + " each after its own backoff.")
        .register(registry);
    for (RetryCode code : RetryCode.values()) {
      retries.put(
          code,
          Counter.builder(RETRIES)
              .description("Requests retried, by what failed (429, 5xx, connection, other).")
              .tag(TAG_CODE, code.tag)
              .register(registry));
    }
    suppressed =
        Counter.builder(WRITES_SUPPRESSED)
            .description("Writes skipped because the object already held the desired content.")
            .register(registry);
    flush =
        Timer.builder(FLUSH)
            .description("Flushes that wrote changes, and how long they took, writes included.")
            .register(registry);
    flushChanges =
        DistributionSummary.builder(FLUSH_CHANGES)
            .description("Changes (creates, updates, deletes) each flush wrote.")
            .register(registry);
    resyncs =
        Counter.builder(RESYNCS)
            .description(
                "Rebuilds of the view of the cluster (start, Lease won, conflict, periodic).")
            .register(registry);
    resyncChanges =
        Counter.builder(RESYNC_CHANGES)
            .description("Changes the rebuilds found.")
            .register(registry);
    kyvernoDeleted =
        Counter.builder(INPUTS_DELETED)
            .description("Kyverno intermediate reports deleted after what they said was written.")
            .register(registry);
    kyvernoExpired =
        Counter.builder(INPUTS_EXPIRED)
            .description("Kyverno admission reports deleted because their resource never appeared.")
            .register(registry);
    rereads =
        Counter.builder(REREADS)
            .description(
                "Re-reads of the objects whose writes met a conflict, a vanished object or a"
                    + " failure: one GET each, no LIST.")
            .register(registry);
    rereadObjects =
        Counter.builder(REREAD_OBJECTS)
            .description("Objects the re-reads read.")
            .register(registry);
    for (String cap : CAPS) {
      capsReached.put(
          cap,
          Counter.builder(CAPS_REACHED)
              .description(
                  "Objects refused at a cap, and tombstones forgotten early at the tombstone cap.")
              .tag(TAG_CAP, capTag(cap))
              .register(registry));
    }
    eventsSuppressed =
        Counter.builder(EVENTS_SUPPRESSED)
            .description(
                "Rejections not recorded as Events because their namespace used up its share.")
            .register(registry);
    Gauge.builder(INPUTS_WAITING, inputsWaiting, AtomicInteger::get)
        .description(
            "Kyverno intermediate reports read and still in the cluster, waiting for the write"
                + " after which they are deleted or for their resource to appear.")
        .register(registry);
    for (TallyMetrics.Lookup lookup : TallyMetrics.Lookup.values()) {
      lookupsFailed.put(
          lookup,
          Counter.builder(LOOKUPS_FAILED)
              .description(
                  "Reads of a resource a Kyverno report names that failed (refused, kind not"
                      + " served, retries exhausted); asked again after a backoff.")
              .tag(TAG_LOOKUP, lookup.metricName())
              .register(registry));
      lookupsSkipped.put(
          lookup,
          Counter.builder(LOOKUPS_SKIPPED)
              .description(
                  "Reads of a resource a Kyverno report names that were not made: its kind is not"
                      + " among the adoption kinds.")
              .tag(TAG_LOOKUP, lookup.metricName())
              .register(registry));
    }
    freshness =
        SOURCES.computeIfAbsent(registry, r -> new AtomicReference<>(() -> Freshness.NOT_LEADING));
    freshnessGauge(
        registry,
        OLDEST_INPUT_AGE,
        "How long the oldest input not yet written has waited.",
        Freshness::oldestUnmergedInput);
    freshnessGauge(
        registry,
        LAST_FLUSH_AGE,
        "Time since the last flush whose writes all succeeded (grows while nothing changes).",
        Freshness::sinceLastFlush);
    freshnessGauge(
        registry,
        LAST_RESYNC_AGE,
        "Time since the last resync that listed, diffed and wrote its difference.",
        Freshness::sinceLastResync);
  }

  private void freshnessGauge(
      MeterRegistry registry,
      String name,
      String description,
      java.util.function.Function<Freshness, Duration> age) {
    ToDoubleFunction<AtomicReference<Supplier<Freshness>>> seconds =
        ref -> age.apply(ref.get().get()).toNanos() / 1e9;
    Gauge.builder(name, freshness, seconds)
        .description(description)
        .baseUnit("seconds")
        .strongReference(true)
        .register(registry);
  }

  /** Reads the freshness gauges from {@code source} from now on. */
  @Override
  public void freshness(Supplier<Freshness> source) {
    freshness.set(Objects.requireNonNull(source, "source"));
  }

  @Override
  public void resourceLookupFailed(TallyMetrics.Lookup lookup) {
    lookupsFailed.get(lookup).increment();
  }

  @Override
  public void resourceLookupSkipped(TallyMetrics.Lookup lookup) {
    lookupsSkipped.get(lookup).increment();
  }

  /**
   * The tag value of a cap: its name in snake case, {@code maxTombstones} as {@code
   * max_tombstones}.
   */
  static String capTag(String cap) {
    return cap.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public void reread(int objects, int changes) {
    rereads.increment();
    rereadObjects.increment(objects);
  }

  @Override
  public void capacityReached(String cap) {
    capsReached.getOrDefault(cap, capsReached.get("other")).increment();
  }

  @Override
  public void rejectionEventSuppressed(String namespace) {
    eventsSuppressed.increment();
  }

  @Override
  public void inputObjectDeleted() {
    kyvernoDeleted.increment();
  }

  @Override
  public void inputObjectExpired() {
    kyvernoExpired.increment();
  }

  @Override
  public void inputObjectsWaiting(int count) {
    inputsWaiting.set(count);
  }

  @Override
  public void partialApplied() {
    applied.increment();
  }

  @Override
  public void partialRejected(RejectionReason reason) {
    rejected.get(reason).increment();
  }

  @Override
  public void partialPublished(WriteVerb verb) {
    published.get(verb).increment();
  }

  @Override
  public void write(WriteVerb verb, ReportRef ref) {
    writes.get(verb).increment();
  }

  @Override
  public void conflict(ReportRef ref) {
    conflicts.increment();
  }

  @Override
  public void writeRefused(ReportRef ref, int code) {
    writesRefused.increment();
  }

  @Override
  public void writesInTrouble(int count) {
    writesInTrouble.set(count);
  }

  @Override
  public void retry(int statusCode, Duration delay) {
    retries.get(RetryCode.of(statusCode)).increment();
  }

  @Override
  public void noOpWriteSuppressed() {
    suppressed.increment();
  }

  @Override
  public void flushed(int changes, Duration took) {
    flush.record(took);
    flushChanges.record(changes);
  }

  @Override
  public void resynced(int changes) {
    resyncs.increment();
    resyncChanges.increment(changes);
  }
}
