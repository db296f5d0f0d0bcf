package dev.tally.aggregator;

import dev.tally.report.api.ReportRef;
import dev.tally.report.fabric8.RejectionReason;
import dev.tally.report.fabric8.TallyMetrics;
import dev.tally.report.fabric8.WriteVerb;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * Tally's {@link TallyMetrics} as Prometheus metrics, in the text exposition format 0.0.4. Every
 * name starts with {@code tally_}; labels take only a few values (a write's verb, a rejection's
 * reason, a retry's status class), never an object's name, so the number of series stays small
 * whatever the cluster holds.
 *
 * <p>Thread-safe: the callbacks only add to adders, and a scrape reads them.
 */
public final class PrometheusMetrics implements TallyMetrics {
  /** The content type of {@link #scrape()}. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final LongAdder applied = new LongAdder();
  private final Map<String, LongAdder> rejected = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> writes = new ConcurrentHashMap<>();
  private final LongAdder conflicts = new LongAdder();
  private final Map<String, LongAdder> retries = new ConcurrentHashMap<>();
  private final LongAdder suppressed = new LongAdder();
  private final LongAdder flushes = new LongAdder();
  private final LongAdder flushedChanges = new LongAdder();
  private final DoubleAdder flushSeconds = new DoubleAdder();
  private final LongAdder resyncs = new LongAdder();
  private final LongAdder resyncChanges = new LongAdder();
  private final Map<String, Gauge> gauges = new LinkedHashMap<>();

  private record Gauge(String help, DoubleSupplier value) {}

  public PrometheusMetrics() {
    for (String reason : List.of("invalid", "namespace", "capacity")) {
      rejected.put(reason, new LongAdder());
    }
    for (String verb : List.of("create", "update", "apply", "delete")) {
      writes.put(verb, new LongAdder());
    }
    for (String code : List.of("429", "5xx", "connection", "other")) {
      retries.put(code, new LongAdder());
    }
  }

  /**
   * Adds a gauge read at each scrape, such as whether this replica leads.
   *
   * @param name the full name, starting with {@code tally_}
   */
  public synchronized PrometheusMetrics gauge(String name, String help, DoubleSupplier value) {
    if (!name.startsWith("tally_")) {
      throw new IllegalArgumentException("a metric's name starts with tally_: " + name);
    }
    gauges.put(name, new Gauge(help, Objects.requireNonNull(value)));
    return this;
  }

  @Override
  public void partialApplied() {
    applied.increment();
  }

  @Override
  public void partialRejected(RejectionReason reason) {
    adder(rejected, reason.metricName()).increment();
  }

  @Override
  public void write(WriteVerb verb, ReportRef ref) {
    adder(writes, verb.metricName()).increment();
  }

  @Override
  public void conflict(ReportRef ref) {
    conflicts.increment();
  }

  @Override
  public void retry(int statusCode, Duration delay) {
    String code;
    if (statusCode == 429) {
      code = "429";
    } else if (statusCode >= 500 && statusCode < 600) {
      code = "5xx";
    } else if (statusCode <= 0) {
      code = "connection";
    } else {
      code = "other";
    }
    retries.get(code).increment();
  }

  @Override
  public void noOpWriteSuppressed() {
    suppressed.increment();
  }

  @Override
  public void flushed(int changes, Duration took) {
    flushes.increment();
    flushedChanges.add(changes);
    flushSeconds.add(took.toNanos() / 1e9);
  }

  @Override
  public void resynced(int changes) {
    resyncs.increment();
    resyncChanges.add(changes);
  }

  /** Every metric now, in the text exposition format 0.0.4. */
  public String scrape() {
    StringBuilder out = new StringBuilder();
    counter(
        out,
        "tally_partial_reports_applied_total",
        "Partial reports the aggregator accepted.",
        applied.sum());
    labelled(
        out,
        "tally_partial_reports_rejected_total",
        "Partial reports refused (they changed nothing), by reason.",
        "reason",
        rejected);
    labelled(
        out,
        "tally_aggregate_writes_total",
        "Writes of aggregate reports, by verb.",
        "verb",
        writes);
    counter(
        out,
        "tally_aggregate_write_conflicts_total",
        "Writes that met a conflict (409) or a vanished object, followed by a re-read.",
        conflicts.sum());
    counter(
        out,
        "tally_aggregate_writes_suppressed_total",
        "Writes skipped because the object already held the desired content.",
        suppressed.sum());
    labelled(
        out,
        "tally_request_retries_total",
        "Requests retried, by what failed (429, 5xx, connection, other).",
        "code",
        retries);
    counter(out, "tally_flushes_total", "Flushes that wrote changes.", flushes.sum());
    counter(
        out,
        "tally_flush_changes_total",
        "Changes (creates, updates, deletes) written by flushes.",
        flushedChanges.sum());
    out.append("# HELP tally_flush_duration_seconds How long flushes took, writes included.\n")
        .append("# TYPE tally_flush_duration_seconds summary\n")
        .append("tally_flush_duration_seconds_sum ")
        .append(number(flushSeconds.sum()))
        .append('\n')
        .append("tally_flush_duration_seconds_count ")
        .append(flushes.sum())
        .append('\n');
    counter(
        out,
        "tally_resyncs_total",
        "Re-reads of the owned aggregates followed by a re-diff (start, Lease won, conflict,"
            + " periodic).",
        resyncs.sum());
    counter(out, "tally_resync_changes_total", "Changes the re-diffs found.", resyncChanges.sum());
    List<Map.Entry<String, Gauge>> gs;
    synchronized (this) {
      gs = new ArrayList<>(gauges.entrySet());
    }
    for (var g : gs) {
      out.append("# HELP ").append(g.getKey()).append(' ').append(g.getValue().help()).append('\n');
      out.append("# TYPE ").append(g.getKey()).append(" gauge\n");
      out.append(g.getKey())
          .append(' ')
          .append(number(g.getValue().value().getAsDouble()))
          .append('\n');
    }
    return out.toString();
  }

  private static LongAdder adder(Map<String, LongAdder> map, String label) {
    // the callers pass a fixed vocabulary; anything else still gets a series, never a failure
    return map.computeIfAbsent(label, l -> new LongAdder());
  }

  private static void counter(StringBuilder out, String name, String help, long value) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(" counter\n");
    out.append(name).append(' ').append(value).append('\n');
  }

  private static void labelled(
      StringBuilder out, String name, String help, String label, Map<String, LongAdder> values) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(" counter\n");
    values.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                out.append(name)
                    .append('{')
                    .append(label)
                    .append("=\"")
                    .append(escape(e.getKey()))
                    .append("\"} ")
                    .append(e.getValue().sum())
                    .append('\n'));
  }

  static String escape(String labelValue) {
    return labelValue.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  private static String number(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }
}
