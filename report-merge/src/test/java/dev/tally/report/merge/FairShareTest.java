package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.FairShare;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The process-wide caps are shared fairly between namespaces (docs/DESIGN.md §9.2, "Fair shares"):
 * a few namespaces filling a cap no longer refuse every other namespace's results; past the cap, a
 * namespace over its fair share is refused, one within it is not; results are counted in bytes as
 * well as entries; and past the tombstone cap the namespace remembering the most forgets first.
 */
class FairShareTest {

  /** Before: four namespaces at a quarter each filled maxResults and refused every other one. */
  @Test
  void namespacesFillingTheProcessCapDoNotRefuseANamespaceWithinItsShare() {
    ReportAggregator a =
        aggregator(InputCaps.defaults().withMaxResultsPerNamespace(25).withMaxResults(100));
    for (String tenant : List.of("t1", "t2", "t3", "t4")) {
      a.apply(results(tenant, "flood", 25));
    }
    assertThat(a.held().results()).isEqualTo(100);

    a.apply(results("victim", "pod", 5));
    assertThat(a.held().results()).as("past the cap, within its share").isEqualTo(105);

    var refused =
        catchThrowableOfType(
            () -> a.apply(results("t1", "more", 1)), CapacityExceededException.class);
    assertThat(refused.cap()).isEqualTo("maxResultsPerNamespace");
    // a namespace over its share of the process cap is refused by it, naming its share
    ReportAggregator b =
        aggregator(InputCaps.defaults().withMaxResultsPerNamespace(90).withMaxResults(100));
    b.apply(results("t1", "flood", 80));
    b.apply(results("t2", "flood", 20));
    var over =
        catchThrowableOfType(
            () -> b.apply(results("t1", "more", 1)), CapacityExceededException.class);
    assertThat(over.cap()).isEqualTo("maxResults");
    assertThat(over.field()).isEqualTo("subject.namespace");
    assertThat(over.reason())
        .contains("namespace 't1' would hold 81 results, over its fair share 50")
        .contains("shared by 2 namespaces");
    assertThat(b.held().results()).as("the refused report changed nothing").isEqualTo(100);
    // t2 (20) is within its share (50): admitted past the cap
    b.apply(results("t2", "more", 30));
    // a third namespace's share is a third of the cap
    b.apply(results("t3", "pod", 33));
    var third =
        catchThrowableOfType(
            () -> b.apply(results("t3", "pod-2", 1)), CapacityExceededException.class);
    assertThat(third.reason()).contains("over its fair share 33");
  }

  @Test
  void theProcessNeverHoldsMoreThanTwiceItsCap() {
    ReportAggregator a =
        aggregator(InputCaps.defaults().withMaxResultsPerNamespace(100).withMaxResults(100));
    a.apply(results("t0", "fill", 100));
    long held = 100;
    // namespaces arriving one after another, each filling its share of a growing number
    for (int n = 2; n <= 40; n++) {
      int share = (int) FairShare.share(100, n);
      try {
        a.apply(results("t" + n, "fill", share));
        held += share;
      } catch (CapacityExceededException e) {
        assertThat(e.reason()).contains("past the ceiling 200");
        assertThat(held + share).isGreaterThan(200);
      }
      assertThat(a.held().results()).isEqualTo(held).isLessThanOrEqualTo(200);
    }
    assertThat(held).as("the ceiling was reached").isGreaterThan(180);
  }

  @Test
  void resultsAreCountedInBytesPerNamespaceAndInAll() {
    String large = "x".repeat(10_000);
    ReportAggregator a =
        aggregator(
            InputCaps.defaults().withMaxResultBytesPerNamespace(50_000).withMaxResultBytes(90_000));
    a.apply(large("t1", "a", 4, large));
    long bytes = a.held().resultBytes();
    assertThat(bytes).isBetween(40_000L, 41_000L);
    var perNamespace =
        catchThrowableOfType(
            () -> a.apply(large("t1", "b", 1, large)), CapacityExceededException.class);
    assertThat(perNamespace.cap()).isEqualTo("maxResultBytesPerNamespace");
    assertThat(perNamespace.reason()).contains("bytes of results");
    a.apply(large("t2", "a", 4, large));
    // past the process cap: t3 is within its share (a third), t1 asking for more is not
    a.apply(large("t3", "a", 1, large));
    assertThat(a.held().resultBytes()).isGreaterThan(90_000L);
    var process =
        catchThrowableOfType(
            () -> a.apply(results("t1", "small", 1)), CapacityExceededException.class);
    assertThat(process.cap()).isEqualTo("maxResultBytes");
    assertThat(process.reason()).contains("bytes of results, over its fair share 30000");
    // replacing a large result by a small one frees its bytes
    long before = a.held().resultBytes();
    a.apply(results("t1", "a", 1, 2_000));
    assertThat(a.held().resultBytes()).isLessThan(before - 9_000);
  }

  /** Before: one namespace's churn forgot every other namespace's deletions first (the oldest). */
  @Test
  void pastTheTombstoneCapTheNamespaceRememberingTheMostForgetsFirst() {
    ReportAggregator a = aggregator(InputCaps.defaults().withMaxTombstones(20));
    for (int i = 0; i < 5; i++) {
      a.deleteSubject("quiet", "quiet-q-" + i, Timestamp.ofSeconds(10 + i));
    }
    for (int i = 0; i < 200; i++) {
      a.deleteSubject("churn", "churn-c-" + i, Timestamp.ofSeconds(100 + i));
    }
    assertThat(a.held().tombstones()).isLessThanOrEqualTo(20);
    for (int i = 0; i < 5; i++) {
      // remembered: a report observed before the deletion stays hidden
      a.apply(results("quiet", "q-" + i, 1, 5));
    }
    assertThat(a.held().results()).as("the quiet namespace's deletions remembered").isZero();
  }

  private static ReportAggregator aggregator(InputCaps caps) {
    return Fixtures.aggregator(
        new AggregatorConfig(
            Grouping.perNamespace(),
            ReportFormat.WGPOLICY,
            ReportLimits.defaults(),
            caps.withMaxResultsPerPartial(Math.max(caps.maxResultsPerPartial(), 200)),
            3600));
  }

  private static PartialReport results(String namespace, String name, int n) {
    return results(namespace, name, n, 1_000);
  }

  /** {@code n} failing results of one policy each about Pod {@code name}, observed at {@code t}. */
  private static PartialReport results(String namespace, String name, int n, long t) {
    return large(namespace, name, n, "", t);
  }

  private static PartialReport large(String namespace, String name, int n, String message) {
    return large(namespace, name, n, message, 1_000);
  }

  private static PartialReport large(String namespace, String name, int n, String message, long t) {
    List<Result> results = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      CoverageKey key = CoverageKey.of("kyverno", "p" + i);
      Result.Builder b =
          Result.builder()
              .source(key.source())
              .policy(key.policy())
              .rule("r")
              .status(ResultStatus.FAIL);
      if (!message.isEmpty()) {
        b.message(message);
      }
      results.add(b.build());
    }
    return PartialReport.builder()
        .producer("kyverno")
        .subject(Subject.of("v1", "Pod", namespace, name, namespace + "-" + name))
        .results(results)
        .observedAt(Timestamp.ofSeconds(t))
        .build();
  }
}
