package dev.tally.report.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.api.testing.ModelGen;
import dev.tally.report.api.testing.RandomModel;
import dev.tally.report.merge.EvaluationOrder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A stale copy replaces the last audit result in the merge, carries the mark into the aggregates,
 * and gives way to every later evaluation.
 */
class StaleResultsProperties {
  private static final String REASON = "LIST failed with 403: forbidden";

  private static WorkUnit unitOf(PartialReport p) {
    GroupVersionKind gvk =
        new GroupVersionKind(
            p.subject().apiVersion().contains("/")
                ? p.subject().apiVersion().substring(0, p.subject().apiVersion().indexOf('/'))
                : "",
            p.subject().apiVersion().substring(p.subject().apiVersion().indexOf('/') + 1),
            p.subject().kind());
    return p.subject().namespace().isEmpty()
        ? WorkUnit.ofKind(gvk, 1)
        : WorkUnit.ofNamespace(gvk, p.subject().namespace(), 1);
  }

  private static List<AggregateReport> aggregates(PartialReport... partials) {
    ReportAggregator aggregator = ReportAggregator.builder().build();
    for (PartialReport p : partials) {
      aggregator.apply(p);
    }
    return aggregator.aggregates();
  }

  private static List<Result> results(List<AggregateReport> aggregates) {
    return aggregates.stream().flatMap(a -> a.results().stream()).toList();
  }

  @Test
  void theCopyIsOrderedRightAfterTheOriginalAndBeforeAnyLaterEvaluation() {
    qt().withFixedSeed(0x57a1eL)
        .withExamples(500)
        .forAll(ModelGen.partials(), ModelGen.models())
        .assuming((p, m) -> !p.results().isEmpty())
        .checkAssert(
            (p, m) -> {
              PartialReport copy =
                  StaleResults.staleCopy(p, unitOf(p), p.producer(), REASON).orElseThrow();
              assertThat(EvaluationOrder.supersedes(copy, p)).isTrue();
              assertThat(copy.observedAt()).isEqualTo(p.observedAt());
              assertThat(copy.generation()).isEqualTo(p.generation() + 1);
              assertThat(StaleResults.isStale(copy)).isTrue();
              assertThat(copy.results())
                  .allMatch(r -> REASON.equals(r.properties().get(WireNames.STALE_PROPERTY)));
              assertThat(copy.results()).hasSameSizeAs(p.results());
              // a later evaluation of anyone, even with generation 0, wins over the copy
              PartialReport later = laterOf(m, p);
              assertThat(EvaluationOrder.supersedes(later, copy)).isTrue();
              // already stale: nothing more to republish
              assertThat(StaleResults.staleCopy(copy, unitOf(p), p.producer(), "other")).isEmpty();
            });
  }

  @Test
  void theAggregatesCarryTheMarkUntilALaterEvaluation() {
    qt().withFixedSeed(0x57a1fL)
        .withExamples(300)
        .forAll(ModelGen.partials(), ModelGen.models())
        .assuming((p, m) -> !p.results().isEmpty())
        .checkAssert(
            (p, m) -> {
              PartialReport copy =
                  StaleResults.staleCopy(p, unitOf(p), p.producer(), REASON).orElseThrow();
              List<Result> marked = results(aggregates(p, copy));
              assertThat(marked).hasSameSizeAs(results(aggregates(p)));
              assertThat(marked)
                  .isNotEmpty()
                  .allMatch(r -> StaleResults.reasonOf(r).equals(java.util.Optional.of(REASON)));
              // whatever the arrival order, the copy never undoes a later evaluation
              PartialReport later = laterOf(m, p);
              List<AggregateReport> fresh = aggregates(p, later);
              assertThat(aggregates(p, copy, later)).isEqualTo(fresh);
              assertThat(aggregates(p, later, copy)).isEqualTo(fresh);
              assertThat(aggregates(later, copy, p)).isEqualTo(fresh);
            });
  }

  /** A partial report about p's subject and coverage, observed a nanosecond or more after p. */
  private static PartialReport laterOf(RandomModel m, PartialReport p) {
    PartialReport any = m.partial(p.subject());
    Timestamp t = p.observedAt();
    Timestamp after =
        t.nanos() < 999_999_999
            ? new Timestamp(t.seconds(), t.nanos() + 1)
            : new Timestamp(t.seconds() + 1, 0);
    List<Result> results =
        any.results().stream()
            .filter(r -> p.effectiveCoverage().contains(r.coverageKey()))
            .toList();
    return PartialReport.builder()
        .producer(any.producer())
        .subject(p.subject())
        .coverage(p.effectiveCoverage())
        .results(results)
        .observedAt(after)
        .generation(0)
        .build();
  }

  @Test
  void onlyTheUnitsOwnResultsAreCopied() {
    PartialReport p = nonEmpty();
    WorkUnit unit = unitOf(p);
    assertThat(StaleResults.staleCopy(p, unit, p.producer(), REASON)).isPresent();
    assertThat(StaleResults.staleCopy(p, unit, p.producer() + "-other", REASON))
        .as("another producer's")
        .isEmpty();
    assertThat(
            StaleResults.staleCopy(
                p, WorkUnit.ofNamespace(unit.gvk(), "elsewhere", 1), p.producer(), REASON))
        .as("another namespace's")
        .isEmpty();
    assertThat(
            StaleResults.staleCopy(
                p,
                WorkUnit.ofKind(GroupVersionKind.of("", "v1", "Secret"), 1),
                p.producer(),
                REASON))
        .as("another kind's")
        .isEmpty();
    assertThat(StaleResults.staleCopy(p, WorkUnit.ofKind(unit.gvk(), 1), p.producer(), REASON))
        .as("the whole kind covers every namespace")
        .isPresent();
  }

  @Test
  void aRetractionHasNothingToMarkAndABlankReasonIsStillAReason() {
    PartialReport p = new RandomModel(3).partial(RandomModel.subject(1));
    PartialReport retraction =
        PartialReport.builder()
            .producer("audit/g")
            .subject(p.subject())
            .coverage(Set.of(dev.tally.report.api.CoverageKey.of("kyverno", "p0")))
            .results(List.of())
            .observedAt(new Timestamp(5, 0))
            .generation(1)
            .build();
    assertThat(StaleResults.staleCopy(retraction, unitOf(p), "audit/g", REASON)).isEmpty();

    PartialReport withResults = withProducer(nonEmpty(), "audit/g");
    PartialReport copy =
        StaleResults.staleCopy(withResults, unitOf(withResults), "audit/g", " ").orElseThrow();
    assertThat(copy.results())
        .allMatch(r -> "unknown failure".equals(r.properties().get(WireNames.STALE_PROPERTY)));
    String longReason = "x".repeat(UnitStatus.MAX_REASON + 10);
    assertThat(
            StaleResults.staleCopy(withResults, unitOf(withResults), "audit/g", longReason)
                .orElseThrow()
                .results()
                .get(0)
                .properties()
                .get(WireNames.STALE_PROPERTY))
        .hasSize(UnitStatus.MAX_REASON);
  }

  @Test
  void theLastGenerationCannotBeFollowedAndSaysSo() {
    PartialReport p = withProducer(nonEmpty(), "audit/g");
    PartialReport last =
        new PartialReport(
            p.producer(),
            p.subject(),
            p.subjectVersion(),
            p.coverage(),
            p.results(),
            p.observedAt(),
            Long.MAX_VALUE);
    assertThatThrownBy(() -> StaleResults.staleCopy(last, unitOf(last), "audit/g", REASON))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageStartingWith("generation:");
  }

  @Test
  void otherPropertiesAreKept() {
    PartialReport p = withProducer(nonEmpty(), "audit/g");
    Result r = p.results().get(0).toBuilder().properties(Map.of("container", "c1")).build();
    PartialReport withProperty =
        new PartialReport(
            p.producer(),
            p.subject(),
            p.subjectVersion(),
            p.coverage(),
            List.of(r),
            p.observedAt(),
            p.generation());
    Result marked =
        StaleResults.staleCopy(withProperty, unitOf(p), "audit/g", REASON)
            .orElseThrow()
            .results()
            .get(0);
    assertThat(marked.properties())
        .containsEntry("container", "c1")
        .containsEntry(WireNames.STALE_PROPERTY, REASON);
  }

  private static PartialReport nonEmpty() {
    for (long seed = 1; ; seed++) {
      PartialReport p = new RandomModel(seed).partial(RandomModel.subject(1));
      if (!p.results().isEmpty()) {
        return p;
      }
    }
  }

  private static PartialReport withProducer(PartialReport p, String producer) {
    return new PartialReport(
        producer,
        p.subject(),
        p.subjectVersion(),
        p.coverage(),
        p.results(),
        p.observedAt(),
        p.generation());
  }
}
