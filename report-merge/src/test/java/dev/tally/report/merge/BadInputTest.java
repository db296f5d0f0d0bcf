package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each bad input of docs/DESIGN.md is refused with the field and the reason, and changes nothing.
 */
class BadInputTest {
  private static final Subject POD = Subject.of("v1", "Pod", "team-a", "web-0", "uid-web-0");

  private ReportAggregator aggregator;

  @BeforeEach
  void aggregatorWithSomeState() {
    aggregator =
        ReportAggregator.builder()
            .caps(
                InputCaps.defaults()
                    .withMaxResultsPerPartial(5)
                    .withMaxSubjectsPerProducer(2)
                    .withMaxResultsPerNamespace(8))
            .build();
    aggregator.apply(partial(POD, "background", 10, result("require-labels", ResultStatus.PASS)));
    aggregator.flush();
  }

  @Test
  void aResultWithoutPolicyIsRefused() {
    var e = refused(() -> Result.builder().status(ResultStatus.FAIL).build());
    assertThat(e.field()).isEqualTo("policy");
    assertThat(e.reason()).isEqualTo("is required");
  }

  @Test
  void anUnknownStatusIsRefused() {
    var e = refused(() -> ResultStatus.fromWire("results[0].result", "passed"));
    assertThat(e.field()).isEqualTo("results[0].result");
    assertThat(e.reason()).contains("unknown status 'passed'");
  }

  @Test
  void nanosOutOfRangeAreRefused() {
    var e = refused(() -> Timestamp.of("results[2].timestamp", 1, 1_000_000_000));
    assertThat(e)
        .hasMessage("results[2].timestamp.nanos: must be in [0, 999999999], was 1000000000");
  }

  @Test
  void negativeAndAbsurdTimestampsAreRefused() {
    assertThat(refused(() -> Timestamp.of("observedAt", -1, 0)).field())
        .isEqualTo("observedAt.seconds");
    assertThat(refused(() -> Timestamp.of("observedAt", Timestamp.MAX_SECONDS + 1, 0)).field())
        .isEqualTo("observedAt.seconds");
  }

  @Test
  void oversizedStringsAreRefused() {
    var e =
        refused(
            () ->
                Result.builder()
                    .policy("p")
                    .status(ResultStatus.FAIL)
                    .message("x".repeat(16 * 1024 + 1))
                    .build());
    assertThat(e.field()).isEqualTo("message");
    assertThat(e.reason()).contains("16385 characters long, at most 16384");
    assertThat(refused(() -> result("p".repeat(254), ResultStatus.PASS)).field())
        .isEqualTo("policy");
  }

  @Test
  void oversizedPropertyMapsAreRefused() {
    Map<String, String> props = new HashMap<>();
    for (int i = 0; i < 65; i++) {
      props.put("k" + i, "v");
    }
    var e =
        refused(
            () -> Result.builder().policy("p").status(ResultStatus.FAIL).properties(props).build());
    assertThat(e.field()).isEqualTo("properties");
    assertThat(e.reason()).contains("65 entries, at most 64");
  }

  @Test
  void aResultAboutAnotherNamespaceIsRefused() {
    Subject elsewhere = Subject.of("v1", "Pod", "team-b", "db-0", "uid-db-0");
    Result leak =
        Result.builder()
            .policy("require-labels")
            .status(ResultStatus.FAIL)
            .resource(elsewhere)
            .build();
    var e = refused(() -> partial(POD, "admission", 20, leak));
    assertThat(e.field()).isEqualTo("results[0].resources[0].namespace");
    assertThat(e.reason()).contains("'team-b' is not the namespace");
  }

  @Test
  void aResultOutsideTheDeclaredCoverageIsRefused() {
    var e =
        refused(
            () ->
                PartialReport.builder()
                    .producer("admission")
                    .subject(POD)
                    .coverage(Set.of(CoverageKey.of("", "other")))
                    .results(List.of(result("require-labels", ResultStatus.FAIL)))
                    .build());
    assertThat(e.field()).isEqualTo("results[0].policy");
  }

  @Test
  void aPartialWithoutSubjectUidIsValidToPublishButRefusedByTheMergeAndChangesNothing() {
    aggregator.apply(partial(POD, "admission", 1, result("p", ResultStatus.FAIL)));
    PartialReport pending =
        partial(POD.withUid(""), "admission", 2, result("p", ResultStatus.PASS));
    assertThat(pending.adopted()).isFalse();
    var e = unchangedAfter(() -> aggregator.apply(pending));
    assertThat(e.field()).isEqualTo("subject.uid");
    assertThat(e.reason()).contains("not been adopted");
    var s = refused(() -> ReportState.empty().apply(pending));
    assertThat(s.field()).isEqualTo("subject.uid");
    PartialReport adopted = pending.withSubjectUid(POD.uid());
    assertThat(adopted.adopted()).isTrue();
    aggregator.apply(adopted);
    assertThat(aggregator.aggregates().get(0).results().get(0).status())
        .isEqualTo(ResultStatus.PASS);
  }

  @Test
  void aPartialOverTheResultCapIsRefusedAndChangesNothing() {
    List<Result> many = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      many.add(result("p" + i, ResultStatus.FAIL));
    }
    PartialReport big = partial(POD, "background", 30, many.toArray(Result[]::new));
    var e = unchangedAfter(() -> aggregator.apply(big));
    assertThat(e).isInstanceOf(CapacityExceededException.class);
    assertThat(e.field()).isEqualTo("results");
    assertThat(((CapacityExceededException) e).limit()).isEqualTo(5);
  }

  @Test
  void aProducerOverItsSubjectCapIsRefusedAndChangesNothing() {
    aggregator.apply(
        partial(pod("web-1"), "background", 11, result("require-labels", ResultStatus.PASS)));
    PartialReport third =
        partial(pod("web-2"), "background", 12, result("require-labels", ResultStatus.FAIL));
    var e = unchangedAfter(() -> aggregator.apply(third));
    assertThat(e).isInstanceOf(CapacityExceededException.class);
    assertThat(e.field()).isEqualTo("producer");
    // another producer is not affected
    aggregator.apply(
        partial(pod("web-2"), "admission", 12, result("require-labels", ResultStatus.FAIL)));
    assertThat(aggregator.resultCount()).isEqualTo(3);
  }

  @Test
  void aNamespaceOverItsCapIsRefusedAndChangesNothing() {
    PartialReport four =
        partial(
            pod("web-3"),
            "admission",
            13,
            result("a", ResultStatus.PASS),
            result("b", ResultStatus.PASS),
            result("c", ResultStatus.PASS),
            result("d", ResultStatus.PASS));
    aggregator.apply(four);
    PartialReport overflow =
        partial(
            pod("web-4"),
            "admission",
            14,
            result("a", ResultStatus.PASS),
            result("b", ResultStatus.PASS),
            result("c", ResultStatus.PASS),
            result("d", ResultStatus.PASS));
    var e = unchangedAfter(() -> aggregator.apply(overflow));
    assertThat(e.field()).isEqualTo("subject.namespace");
    assertThat(e.reason()).contains("'team-a' would hold 9 results, at most 8");
  }

  private static Subject pod(String name) {
    return Subject.of("v1", "Pod", "team-a", name, "uid-" + name);
  }

  private static Result result(String policy, ResultStatus status) {
    return Result.builder().source("kyverno").policy(policy).rule("check").status(status).build();
  }

  private static PartialReport partial(
      Subject subject, String producer, long seconds, Result... results) {
    return PartialReport.builder()
        .producer(producer)
        .subject(subject)
        .results(List.of(results))
        .observedAt(Timestamp.ofSeconds(seconds))
        .build();
  }

  private static InvalidReportException refused(Runnable action) {
    var e = catchThrowableOfType(InvalidReportException.class, action::run);
    assertThat(e).as("refused with InvalidReportException").isNotNull();
    return e;
  }

  /** Runs a refused action against the aggregator and checks that it changed nothing. */
  private InvalidReportException unchangedAfter(Runnable action) {
    List<AggregateReport> before = aggregator.aggregates();
    long count = aggregator.resultCount();
    aggregator.flush();
    var e = refused(action);
    assertThat(aggregator.aggregates()).isEqualTo(before);
    assertThat(aggregator.resultCount()).isEqualTo(count);
    assertThat(aggregator.flush().isEmpty()).as("nothing to write after a refusal").isTrue();
    return e;
  }
}
