package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.fabric8.RejectionReason;
import dev.tally.report.fabric8.WriteVerb;
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
  private static final Pattern SAMPLE =
      Pattern.compile(
          "^(tally_[a-z_]+)(\\{[a-z_]+=\"[^\"\\\\\\n]*\"\\})? (-?[0-9.]+(E-?[0-9]+)?|NaN)$");
  private static final Pattern TYPE =
      Pattern.compile("^# TYPE (tally_[a-z_]+) (counter|gauge|summary)$");

  @Test
  void theCallbacksMoveTheirSeries() {
    PrometheusMetrics metrics = new PrometheusMetrics();
    AtomicInteger leading = new AtomicInteger();
    metrics.gauge("tally_leader", "leads", leading::get);
    ReportRef ref = new ReportRef(ReportKind.POLICY_REPORT, "shop", "tally-namespace-all");

    Map<String, String> before = samples(metrics.scrape());
    assertThat(before)
        .containsEntry("tally_partial_reports_applied_total", "0")
        .containsEntry("tally_aggregate_writes_total{verb=\"create\"}", "0")
        .containsEntry("tally_leader", "0");

    metrics.partialApplied();
    metrics.partialApplied();
    metrics.partialRejected(RejectionReason.CAPACITY);
    metrics.write(WriteVerb.CREATE, ref);
    metrics.write(WriteVerb.UPDATE, ref);
    metrics.write(WriteVerb.UPDATE, ref);
    metrics.conflict(ref);
    metrics.retry(429, Duration.ofMillis(200));
    metrics.retry(503, Duration.ofMillis(200));
    metrics.retry(0, Duration.ofMillis(200));
    metrics.noOpWriteSuppressed();
    metrics.flushed(3, Duration.ofMillis(1500));
    metrics.resynced(2);
    leading.set(1);

    Map<String, String> after = samples(metrics.scrape());
    assertThat(after)
        .containsEntry("tally_partial_reports_applied_total", "2")
        .containsEntry("tally_partial_reports_rejected_total{reason=\"capacity\"}", "1")
        .containsEntry("tally_partial_reports_rejected_total{reason=\"invalid\"}", "0")
        .containsEntry("tally_aggregate_writes_total{verb=\"create\"}", "1")
        .containsEntry("tally_aggregate_writes_total{verb=\"update\"}", "2")
        .containsEntry("tally_aggregate_write_conflicts_total", "1")
        .containsEntry("tally_aggregate_writes_suppressed_total", "1")
        .containsEntry("tally_request_retries_total{code=\"429\"}", "1")
        .containsEntry("tally_request_retries_total{code=\"5xx\"}", "1")
        .containsEntry("tally_request_retries_total{code=\"connection\"}", "1")
        .containsEntry("tally_flushes_total", "1")
        .containsEntry("tally_flush_changes_total", "3")
        .containsEntry("tally_flush_duration_seconds_sum", "1.5")
        .containsEntry("tally_flush_duration_seconds_count", "1")
        .containsEntry("tally_resyncs_total", "1")
        .containsEntry("tally_resync_changes_total", "2")
        .containsEntry("tally_leader", "1");
    // the object written is no label: the series do not grow with the cluster
    assertThat(after).hasSameSizeAs(before);
  }

  @Test
  void theExpositionIsWellFormed() {
    PrometheusMetrics metrics = new PrometheusMetrics();
    metrics.gauge("tally_ready", "ready", () -> 1);
    metrics.flushed(1, Duration.ofNanos(123_456_789));
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
      String family = sample.group(1).replaceAll("_(sum|count)$", "");
      assertThat(typed).as("TYPE before the samples of " + line).contains(family);
    }
    assertThat(samples(text)).containsEntry("tally_flush_duration_seconds_sum", "0.123456789");
  }

  @Test
  void labelValuesAreEscaped() {
    assertThat(PrometheusMetrics.escape("a\"b\\c\nd")).isEqualTo("a\\\"b\\\\c\\nd");
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
