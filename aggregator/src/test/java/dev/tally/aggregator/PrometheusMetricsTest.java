package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.fabric8.metrics.RejectionReason;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.metrics.WriteVerb;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PrometheusMetricsTest {
  private static final String LABEL = "[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\"\\\\n])*\"";
  private static final Pattern SAMPLE =
      Pattern.compile(
          "^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{"
              + LABEL
              + "(?:,"
              + LABEL
              + ")*\\})? (-?[0-9.]+(E-?[0-9]+)?|NaN|[+-]Inf)$");
  private static final Pattern TYPE =
      Pattern.compile("^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|summary|histogram)$");

  @Test
  void theCallbacksMoveTheirSeries() {
    PrometheusMetrics metrics = new PrometheusMetrics();
    AtomicInteger leading = new AtomicInteger();
    metrics.gauge("tally.leader", "leads", leading::get);
    TallyMetrics tally = metrics.tally();
    ReportRef ref = new ReportRef(ReportKind.POLICY_REPORT, "shop", "tally-namespace-all");

    Map<String, String> before = tallySamples(metrics.scrape());
    assertThat(before)
        .containsEntry("tally_partials_applied_total", "0.0")
        .containsEntry("tally_writes_total{verb=\"create\"}", "0.0")
        .containsEntry("tally_leader", "0.0");

    tally.partialApplied();
    tally.partialApplied();
    tally.partialRejected(RejectionReason.CAPACITY);
    tally.partialPublished(WriteVerb.CREATE);
    tally.write(WriteVerb.CREATE, ref);
    tally.write(WriteVerb.UPDATE, ref);
    tally.write(WriteVerb.UPDATE, ref);
    tally.conflict(ref);
    tally.retry(429, Duration.ofMillis(200));
    tally.retry(503, Duration.ofMillis(200));
    tally.retry(0, Duration.ofMillis(200));
    tally.noOpWriteSuppressed();
    tally.flushed(3, Duration.ofMillis(1500));
    tally.resynced(2);
    leading.set(1);

    Map<String, String> after = tallySamples(metrics.scrape());
    assertThat(after)
        .containsEntry("tally_partials_applied_total", "2.0")
        .containsEntry("tally_partials_rejected_total{reason=\"capacity\"}", "1.0")
        .containsEntry("tally_partials_rejected_total{reason=\"invalid\"}", "0.0")
        .containsEntry("tally_partials_published_total{verb=\"create\"}", "1.0")
        .containsEntry("tally_writes_total{verb=\"create\"}", "1.0")
        .containsEntry("tally_writes_total{verb=\"update\"}", "2.0")
        .containsEntry("tally_conflicts_total", "1.0")
        .containsEntry("tally_writes_suppressed_total", "1.0")
        .containsEntry("tally_retries_total{code=\"429\"}", "1.0")
        .containsEntry("tally_retries_total{code=\"5xx\"}", "1.0")
        .containsEntry("tally_retries_total{code=\"connection\"}", "1.0")
        .containsEntry("tally_retries_total{code=\"other\"}", "0.0")
        .containsEntry("tally_flush_seconds_count", "1")
        .containsEntry("tally_flush_seconds_sum", "1.5")
        .containsEntry("tally_flush_changes_count", "1")
        .containsEntry("tally_flush_changes_sum", "3.0")
        .containsEntry("tally_resyncs_total", "1.0")
        .containsEntry("tally_resync_changes_total", "2.0")
        .containsEntry("tally_leader", "1.0");
    // the object written is no label: the series do not grow with the cluster
    assertThat(after.keySet()).isEqualTo(before.keySet());
  }

  @Test
  void theExpositionIsWellFormedAndCarriesTheJvmsMeters() {
    PrometheusMetrics metrics = new PrometheusMetrics();
    metrics.gauge("tally.ready", "ready", () -> 1);
    metrics.tally().flushed(1, Duration.ofNanos(123_456_789));
    String text = metrics.scrape();
    assertThat(text).endsWith("\n");
    Set<String> typed = new HashSet<>();
    Set<String> helped = new HashSet<>();
    for (String line : text.split("\n")) {
      Matcher type = TYPE.matcher(line);
      if (type.matches()) {
        assertThat(typed.add(type.group(1))).as("one TYPE per family: " + line).isTrue();
        assertThat(helped).as("HELP before TYPE: " + line).contains(type.group(1));
        continue;
      }
      if (line.startsWith("# HELP ")) {
        helped.add(line.split(" ")[2]);
        continue;
      }
      Matcher sample = SAMPLE.matcher(line);
      assertThat(sample.matches()).as("a sample line: " + line).isTrue();
      String name = sample.group(1);
      assertThat(typed)
          .as("TYPE before the samples of " + line)
          .containsAnyOf(name, name.replaceAll("_(sum|count|max)$", ""));
    }
    assertThat(samples(text))
        .containsEntry("tally_flush_seconds_sum", "0.123456789")
        .containsEntry("tally_ready", "1.0")
        .containsKey("jvm_threads_live_threads")
        .containsKey("process_uptime_seconds");
  }

  @Test
  void aGaugeIsNamedLikeTheOtherTallyMeters() {
    PrometheusMetrics metrics = new PrometheusMetrics();
    assertThatThrownBy(() -> metrics.gauge("tally_leader", "leads", () -> 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tally.");
  }

  /** GET /metrics of the aggregator's HTTP server, as Prometheus scrapes it. */
  @Test
  void theMetricsEndpointServesTheFiguresAsWritesHappen() throws Exception {
    PrometheusMetrics metrics = new PrometheusMetrics();
    metrics.gauge("tally.ready", "ready", () -> 1);
    HttpClient http = HttpClient.newHttpClient();
    try (HealthServer server =
        HealthServer.of(0, () -> null, () -> null, metrics, Duration.ofSeconds(5))) {
      URI uri = URI.create("http://localhost:" + server.port() + "/metrics");
      HttpResponse<String> first =
          http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.headers().firstValue("Content-Type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8");
      assertThat(samples(first.body()))
          .containsEntry("tally_writes_total{verb=\"create\"}", "0.0")
          .containsEntry("tally_ready", "1.0");

      ReportRef ref = new ReportRef(ReportKind.POLICY_REPORT, "shop", "tally-namespace-all");
      metrics.tally().write(WriteVerb.CREATE, ref);
      metrics.tally().write(WriteVerb.CREATE, ref);
      metrics.tally().flushed(2, Duration.ofMillis(40));

      HttpResponse<String> second =
          http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(samples(second.body()))
          .containsEntry("tally_writes_total{verb=\"create\"}", "2.0")
          .containsEntry("tally_writes_total{verb=\"update\"}", "0.0")
          .containsEntry("tally_flush_seconds_count", "1")
          .containsEntry("tally_flush_changes_sum", "2.0");
    }
  }

  /** Sample name with labels to value, of the {@code tally_} families only. */
  static Map<String, String> tallySamples(String exposition) {
    Map<String, String> out = new LinkedHashMap<>();
    samples(exposition)
        .forEach(
            (k, v) -> {
              if (k.startsWith("tally_")) {
                out.put(k, v);
              }
            });
    return out;
  }

  /** Sample name with labels to value. */
  static Map<String, String> samples(String exposition) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : exposition.split("\n")) {
      if (!line.startsWith("#") && !line.isBlank()) {
        int space = line.lastIndexOf(' ');
        out.put(line.substring(0, space), line.substring(space + 1));
      }
    }
    return out;
  }
}
