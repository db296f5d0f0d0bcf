package dev.tally.aggregator;

import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.micrometer.MicrometerTallyMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * The aggregator's metrics: report-micrometer's {@link MicrometerTallyMetrics}, the program's own
 * gauges and the JVM's usual meters, in one Micrometer {@link PrometheusMeterRegistry}, rendered in
 * Prometheus' text exposition format 0.0.4 for {@code /metrics}. Micrometer's names become
 * Prometheus names there: {@code tally.writes} is {@code tally_writes_total}, the timer {@code
 * tally.flush} is {@code tally_flush_seconds_count}, {@code _sum} and {@code _max}.
 *
 * <p>Thread-safe: the callbacks increment meters, and a scrape reads them.
 */
final class PrometheusMetrics implements AutoCloseable {
  /** The content type of {@link #scrape()}. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final TallyMetrics tally = new MicrometerTallyMetrics(registry);
  private final JvmGcMetrics gc = new JvmGcMetrics();

  PrometheusMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  /** What the controller reports to. */
  TallyMetrics tally() {
    return tally;
  }

  /** The registry, for meters of its own. */
  MeterRegistry registry() {
    return registry;
  }

  /**
   * Adds a gauge read at each scrape, such as whether this replica leads.
   *
   * @param name a Micrometer name starting with {@code tally.}
   */
  PrometheusMetrics gauge(String name, String help, DoubleSupplier value) {
    if (!name.startsWith("tally.")) {
      throw new IllegalArgumentException("a metric's name starts with tally.: " + name);
    }
    Objects.requireNonNull(value);
    // held strongly: a gauge of a weakly held lambda would read NaN once it is collected
    Gauge.builder(name, value, DoubleSupplier::getAsDouble)
        .description(help)
        .strongReference(true)
        .register(registry);
    return this;
  }

  /** Every meter now, in the text exposition format 0.0.4. */
  String scrape() {
    return registry.scrape(CONTENT_TYPE);
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
