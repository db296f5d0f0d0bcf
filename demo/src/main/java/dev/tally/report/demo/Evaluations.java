package dev.tally.report.demo;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The demo's policy engine: the policies, and an evaluation of a pod against each (a seeded roll of
 * pass, fail, warn, error or skip), as the partial report a producer publishes. It remembers each
 * producer's last evaluation of each pod, which the steady-state chapter publishes again.
 *
 * <p>Every producing chapter of {@link Demo} evaluates with it.
 */
final class Evaluations {
  static final List<String> POLICIES =
      List.of(
          "require-labels",
          "disallow-latest-tag",
          "require-requests-limits",
          "disallow-privileged",
          "restrict-host-path",
          "require-probes");
  static final String REMOVED_POLICY = "require-probes";

  private final Random random = new Random(42);
  private final Map<String, PartialReport> lastEvaluations = new HashMap<>();
  private long tick = 1_700_000_000L;

  /** {@code producer}'s evaluation of {@code pod} against every policy, a second after the last. */
  PartialReport evaluate(String producer, Subject pod) {
    tick++;
    List<Result> results = new ArrayList<>();
    Set<CoverageKey> coverage = new HashSet<>();
    for (String policy : POLICIES) {
      coverage.add(CoverageKey.of("kyverno", policy));
      int roll = random.nextInt(20);
      ResultStatus status =
          roll == 0
              ? ResultStatus.ERROR
              : roll < 3
                  ? ResultStatus.FAIL
                  : roll < 5
                      ? ResultStatus.WARN
                      : roll == 5 ? ResultStatus.SKIP : ResultStatus.PASS;
      results.add(
          Result.builder()
              .source("kyverno")
              .policy(policy)
              .rule("check-" + policy)
              .status(status)
              .severity(Severity.MEDIUM)
              .category("Pod Security")
              .message(status == ResultStatus.PASS ? "rule passed" : "validation failed: " + policy)
              .resource(pod)
              .build());
    }
    var e = new PartialReport(producer, pod, "", coverage, results, new Timestamp(tick, 0), 0);
    if (!pod.uid().isEmpty()) {
      lastEvaluations.put(producer + "/" + pod.uid(), e);
    }
    return e;
  }

  /** {@code producer}'s last evaluation of {@code pod} once it had a uid, if any. */
  @Nullable PartialReport last(String producer, Subject pod) {
    return lastEvaluations.get(producer + "/" + pod.uid());
  }

  /** Every policy but the removed one. */
  static Set<CoverageKey> livePolicies() {
    Set<CoverageKey> live = new HashSet<>();
    for (String policy : POLICIES) {
      if (!policy.equals(REMOVED_POLICY)) {
        live.add(CoverageKey.of("kyverno", policy));
      }
    }
    return live;
  }
}
