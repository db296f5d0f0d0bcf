package dev.tally.report.demo;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Aggregates the partial reports of a generated cluster in memory and prints the reports like
 * {@code kubectl get polr -A}, with what each step would write.
 */
public final class Demo {
  private static final List<String> POLICIES =
      List.of(
          "require-labels",
          "disallow-latest-tag",
          "require-requests-limits",
          "disallow-privileged",
          "restrict-host-path",
          "require-probes");

  private final PrintStream out;
  private final Random random = new Random(42);

  Demo(PrintStream out) {
    this.out = out;
  }

  public static void main(String[] args) {
    new Demo(System.out).run(8, 60);
  }

  void run(int namespaces, int podsPerNamespace) {
    ReportAggregator aggregator =
        ReportAggregator.builder()
            .grouping(Grouping.perNamespace())
            .limits(ReportLimits.defaults().withMaxResults(200))
            .build();

    List<Subject> pods = new ArrayList<>();
    for (int n = 0; n < namespaces; n++) {
      for (int p = 0; p < podsPerNamespace * (n + 1) / 2; p++) {
        pods.add(Subject.of("v1", "Pod", "team-" + n, "app-" + p, "uid-" + n + "-" + p));
      }
    }
    long now = 1_700_000_000L;

    // admission evaluates every pod as it is created, the background scan re-evaluates later
    for (Subject pod : pods) {
      aggregator.apply(evaluate(pod, "admission", now));
    }
    step("admission of " + pods.size() + " pods", aggregator.flush());
    for (Subject pod : pods) {
      aggregator.apply(evaluate(pod, "background", now + 60));
    }
    step("background scan, same verdicts mostly", aggregator.flush());
    step("nothing changed", aggregator.flush());

    // churn: pods deleted, a policy retired
    for (int i = 0; i < pods.size(); i += 7) {
      aggregator.deleteSubject(pods.get(i).uid(), Timestamp.ofSeconds(now + 120));
    }
    step("every 7th pod deleted", aggregator.flush());
    Set<CoverageKey> live = new HashSet<>();
    for (String policy : POLICIES.subList(1, POLICIES.size())) {
      live.add(CoverageKey.of("kyverno", policy));
    }
    aggregator.setLiveness(Liveness.only(live));
    step("policy " + POLICIES.get(0) + " removed", aggregator.flush());

    out.println();
    out.printf(
        "%-10s %-28s %6s %6s %6s %6s %6s%n",
        "NAMESPACE", "NAME", "PASS", "FAIL", "WARN", "ERROR", "SKIP");
    for (AggregateReport r : aggregator.aggregates()) {
      out.printf(
          "%-10s %-28s %6d %6d %6d %6d %6d%n",
          r.ref().namespace(),
          r.ref().name(),
          r.summary().pass(),
          r.summary().fail(),
          r.summary().warn(),
          r.summary().error(),
          r.summary().skip());
    }
  }

  private PartialReport evaluate(Subject pod, String producer, long seconds) {
    List<Result> results = new ArrayList<>();
    for (String policy : POLICIES) {
      boolean fails = random.nextInt(10) == 0;
      results.add(
          Result.builder()
              .source("kyverno")
              .policy(policy)
              .rule("check-" + policy)
              .status(fails ? ResultStatus.FAIL : ResultStatus.PASS)
              .severity(Severity.MEDIUM)
              .message(fails ? "validation error: " + policy : "rule passed")
              .resource(pod)
              .build());
    }
    return PartialReport.builder()
        .producer(producer)
        .subject(pod)
        .results(results)
        .observedAt(Timestamp.ofSeconds(seconds))
        .build();
  }

  private void step(String what, ChangeSet changes) {
    out.printf(
        "%-40s creates=%-3d updates=%-3d deletes=%-3d%n",
        what, changes.creates().size(), changes.updates().size(), changes.deletes().size());
  }
}
