package dev.tally.report.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingSupplier;

/**
 * A lone surrogate (a high surrogate not followed by a low one, or a low one alone) is no
 * character: it has no UTF-8 encoding, so a report holding one could not be written as it is. Every
 * string of the model refuses it at construction, naming the field; valid surrogate pairs are
 * characters like any other.
 */
class LoneSurrogateTest {
  private static final String HIGH = "\ud83d";
  private static final String LOW = "\ude00";
  private static final String PAIR = HIGH + LOW; // U+1F600

  private static Result.Builder result() {
    return Result.builder().policy("p").status(ResultStatus.FAIL);
  }

  private static InvalidReportException refused(ThrowingSupplier<?> construction) {
    var e = catchThrowableOfType(InvalidReportException.class, construction::get);
    assertThat(e).as("an InvalidReportException").isNotNull();
    return e;
  }

  @Test
  void aLoneHighSurrogateInAMessageIsRefusedWithItsField() {
    var e = refused(() -> result().message("ok " + HIGH + " then ascii").build());
    assertThat(e.field()).isEqualTo("message");
    assertThat(e.reason())
        .isEqualTo("holds a lone surrogate U+D83D at index 3, which cannot be encoded");
  }

  @Test
  void aLoneLowSurrogateIsRefusedToo() {
    assertThat(refused(() -> result().message(LOW + "x").build()).field()).isEqualTo("message");
    // reversed: a low surrogate then a high one is two lone surrogates, not a pair
    assertThat(refused(() -> result().rule(LOW + HIGH).build()).field()).isEqualTo("rule");
  }

  @Test
  void aHighSurrogateAtTheEndIsRefused() {
    var e = refused(() -> result().category("Pod" + HIGH).build());
    assertThat(e.field()).isEqualTo("category");
    assertThat(e.reason()).contains("U+D83D at index 3");
  }

  @Test
  void everyStringFieldOfAResultIsChecked() {
    assertThat(refused(() -> result().source(HIGH).build()).field()).isEqualTo("source");
    assertThat(refused(() -> Result.builder().policy("p" + LOW).status(ResultStatus.PASS).build()))
        .extracting(InvalidReportException::field)
        .isEqualTo("policy");
    assertThat(refused(() -> result().properties(Map.of("container", "c" + HIGH)).build()).field())
        .isEqualTo("properties[container]");
    assertThat(refused(() -> result().properties(Map.of("k" + LOW, "v")).build()).field())
        .isEqualTo("properties key");
  }

  @Test
  void everyStringFieldOfASubjectIsChecked() {
    assertThat(refused(() -> Subject.of("v1" + HIGH, "Pod", "ns", "n", "u")).field())
        .isEqualTo("apiVersion");
    assertThat(refused(() -> Subject.of("v1", "Pod" + LOW, "ns", "n", "u")).field())
        .isEqualTo("kind");
    assertThat(refused(() -> Subject.of("v1", "Pod", HIGH, "n", "u")).field())
        .isEqualTo("namespace");
    assertThat(refused(() -> Subject.of("v1", "Pod", "ns", "web-" + HIGH, "u")).field())
        .isEqualTo("name");
    assertThat(refused(() -> Subject.of("v1", "Pod", "ns", "n", LOW)).field()).isEqualTo("uid");
  }

  @Test
  void selectorsKeysPartialReportsAndAggregatesAreChecked() {
    assertThat(refused(() -> LabelSelector.matching(Map.of("app", HIGH))).field())
        .isEqualTo("matchLabels[app]");
    assertThat(
            refused(() -> new LabelSelector.Requirement("tier", "In", List.of("web", LOW))).field())
        .isEqualTo("values[1]");
    assertThat(refused(() -> CoverageKey.of("kyverno", "p" + HIGH)).field()).isEqualTo("policy");
    Subject pod = Subject.of("v1", "Pod", "ns", "web-0", "uid-0");
    Result ok = result().build();
    assertThat(
            refused(
                    () ->
                        PartialReport.builder()
                            .producer("admission" + LOW)
                            .subject(pod)
                            .results(List.of(ok))
                            .build())
                .field())
        .isEqualTo("producer");
    assertThat(
            refused(
                    () ->
                        PartialReport.builder()
                            .producer("admission")
                            .subject(pod)
                            .subjectVersion(HIGH)
                            .results(List.of(ok))
                            .build())
                .field())
        .isEqualTo("subjectVersion");
    var ref = new ReportRef(ReportKind.POLICY_REPORT, "ns", "r");
    assertThat(
            refused(
                    () ->
                        new AggregateReport(
                            ref,
                            Map.of("team", "a" + HIGH),
                            Optional.empty(),
                            Optional.empty(),
                            Optional.empty(),
                            List.of(),
                            Summary.EMPTY,
                            ""))
                .field())
        .isEqualTo("labels[team]");
    assertThat(
            refused(
                    () ->
                        new AggregateReport(
                            ref,
                            Map.of(),
                            Optional.empty(),
                            Optional.empty(),
                            Optional.empty(),
                            List.of(),
                            Summary.EMPTY,
                            "hash" + LOW))
                .field())
        .isEqualTo("contentHash");
    assertThat(refused(() -> new ReportRef(ReportKind.POLICY_REPORT, "ns" + HIGH, "r")).field())
        .isEqualTo("namespace");
    assertThat(
            refused(
                    () ->
                        new Liveness(
                            Optional.empty(),
                            Set.of(new Liveness.RuleRef(CoverageKey.of("", "p"), "r" + LOW))))
                .field())
        .isEqualTo("rule"); // refused when the RuleRef is made, before the Liveness
  }

  @Test
  void validPairsAreAccepted() {
    Result r =
        result()
            .message(PAIR + " \u20ac " + PAIR)
            .rule(PAIR)
            .properties(Map.of("k" + PAIR, PAIR))
            .resource(Subject.of("v1", "Pod", "ns", "web-" + PAIR, PAIR))
            .build();
    assertThat(r.message()).isEqualTo(PAIR + " \u20ac " + PAIR);
    assertThat(r.properties()).containsEntry("k" + PAIR, PAIR);
    assertThat(new LabelSelector.Requirement("k", "In", List.of(PAIR)).values())
        .containsExactly(PAIR);
  }

  @Test
  void aPairAtTheLengthCapFitsAndTheCapCountsChars() {
    // 126 ASCII chars and one pair are 128 chars: the longest uid
    String uid = "u".repeat(126) + PAIR;
    assertThat(Subject.of("v1", "Pod", "ns", "n", uid).uid()).hasSize(128);
    assertThat(refused(() -> Subject.of("v1", "Pod", "ns", "n", uid + "x")).reason())
        .isEqualTo("is 129 characters long, at most 128 allowed");
  }
}
