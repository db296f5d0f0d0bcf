package dev.tally.aggregator.hostile;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run measured, printed and written as a Markdown table: attacks tried by kind (steps, and
 * the API server's answers), the victim's staleness after each change (p50, p99, max), the
 * aggregator's peak RSS, its restarts, and the health probes. Measurements only: the harness's
 * contract is checked by bounded waits and probes, never by comparing these times.
 */
record Figures(
    Dialect input,
    long seed,
    long elapsedMillis,
    int victimChanges,
    List<Long> stalenessMillis,
    int healthProbes,
    int healthFailures,
    long peakRssKiB,
    long rssLimitKiB,
    int restarts,
    long tenantRequests,
    Map<String, Integer> stepsByKind,
    Map<String, Map<String, Long>> answersByKind) {

  long percentile(double p) {
    if (stalenessMillis.isEmpty()) {
      return 0;
    }
    List<Long> sorted = new ArrayList<>(stalenessMillis);
    Collections.sort(sorted);
    int i = (int) Math.ceil(p * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }

  /** The run's figures, as lines for the test's output. */
  String text() {
    StringBuilder b = new StringBuilder();
    b.append("input ")
        .append(input.flag)
        .append(", seed ")
        .append(seed)
        .append(", ")
        .append(elapsedMillis / 1000)
        .append(" s\n");
    b.append("victim changes: ").append(victimChanges).append('\n');
    b.append("victim staleness: p50 ")
        .append(percentile(0.50))
        .append(" ms, p99 ")
        .append(percentile(0.99))
        .append(" ms, max ")
        .append(percentile(1.0))
        .append(" ms\n");
    b.append("/healthz probes: ")
        .append(healthProbes)
        .append(", not 200: ")
        .append(healthFailures)
        .append('\n');
    b.append("peak RSS: ")
        .append(peakRssKiB / 1024)
        .append(" MiB (limit ")
        .append(rssLimitKiB / 1024)
        .append(" MiB); restarts: ")
        .append(restarts)
        .append('\n');
    b.append("tenant requests: ").append(tenantRequests).append('\n');
    b.append("attacks by kind (steps; answers):\n");
    Map<String, Integer> kinds = new TreeMap<>(stepsByKind);
    kinds.forEach(
        (kind, steps) ->
            b.append("  ")
                .append(kind)
                .append(": ")
                .append(steps)
                .append("; ")
                .append(answersByKind.getOrDefault(kind, Map.of()))
                .append('\n'));
    return b.toString();
  }

  /** One row of the README's table. */
  String markdownRow() {
    StringBuilder attacks = new StringBuilder();
    new TreeMap<>(stepsByKind)
        .forEach(
            (kind, steps) -> {
              if (attacks.length() > 0) {
                attacks.append(", ");
              }
              attacks.append(kind).append(' ').append(steps);
            });
    return "| "
        + input.flag
        + " | "
        + seed
        + " | "
        + elapsedMillis / 1000
        + " s | "
        + attacks
        + " | "
        + tenantRequests
        + " | "
        + victimChanges
        + " | "
        + percentile(0.50)
        + " / "
        + percentile(0.99)
        + " / "
        + percentile(1.0)
        + " ms | "
        + peakRssKiB / 1024
        + " MiB | "
        + healthFailures
        + " of "
        + healthProbes
        + " | "
        + restarts
        + " |";
  }

  static String markdownHeader() {
    return "| input | seed | time | attacks tried by kind (steps) | tenant requests | victim changes"
        + " | victim staleness p50 / p99 / max | peak RSS | /healthz not 200 | restarts |\n"
        + "|---|---|---|---|---|---|---|---|---|---|";
  }
}
