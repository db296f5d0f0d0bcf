package dev.tally.report.merge.names;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A grouping scoped to its subject makes the subject its report's owner: a subject the API server
 * refuses as an owner reference is refused when applied, naming the field, and changes nothing;
 * other groupings make no owner and take it.
 */
class OwnerReferencesTest {
  private static final Subject POD = Subject.of("v1", "Pod", "team-a", "web-0", "uid-web-0");

  private static PartialReport about(Subject subject) {
    return PartialReport.builder()
        .producer("background")
        .subject(subject)
        .coverage(Set.of(CoverageKey.of("kyverno", "require-labels")))
        .results(
            List.of(
                Result.builder()
                    .source("kyverno")
                    .policy("require-labels")
                    .rule("check")
                    .status(ResultStatus.FAIL)
                    .build()))
        .observedAt(Timestamp.ofSeconds(1_700_000_000))
        .build();
  }

  private static InvalidReportException refusedAs(Grouping grouping, Subject subject) {
    ReportAggregator aggregator = ReportAggregator.builder().grouping(grouping).build();
    aggregator.apply(about(POD));
    ChangeSet first = aggregator.flush();
    var e =
        catchThrowableOfType(() -> aggregator.apply(about(subject)), InvalidReportException.class);
    assertThat(aggregator.flush()).as("nothing changed").isEqualTo(ChangeSet.EMPTY);
    assertThat(first.changes()).hasSize(1);
    return e;
  }

  @Test
  void anEventCannotOwnItsReport() {
    var event = Subject.of("v1", "Event", "team-a", "web-0.17a", "uid-event");
    for (Grouping g : List.of(Grouping.kyvernoPerResource(), Grouping.perSubject())) {
      var e = refusedAs(g, event);
      assertThat(e).as(g.toString()).isNotNull();
      assertThat(e.field()).isEqualTo("subject.kind");
      assertThat(e.reason()).contains("v1 Event may not own objects");
    }
  }

  @Test
  void theCoreGroupSpelledWithASlashIsTheCoreGroup() {
    var e = refusedAs(Grouping.perSubject(), Subject.of("/v1", "Event", "team-a", "e", "u"));
    assertThat(e.field()).isEqualTo("subject.kind");
  }

  @Test
  void anOwnerReferenceNeedsAVersionAKindAName() {
    assertThat(refusedAs(Grouping.perSubject(), Subject.of("", "Pod", "team-a", "p", "u")).field())
        .isEqualTo("subject.apiVersion");
    assertThat(refusedAs(Grouping.perSubject(), Subject.of("a/b/c", "Pod", "team-a", "p", "u")))
        .extracting(InvalidReportException::field)
        .isEqualTo("subject.apiVersion");
    assertThat(refusedAs(Grouping.perSubject(), Subject.of("apps/", "Pod", "team-a", "p", "u")))
        .extracting(InvalidReportException::field)
        .isEqualTo("subject.apiVersion");
    assertThat(refusedAs(Grouping.perSubject(), Subject.of("v1", "", "team-a", "p", "u")))
        .extracting(InvalidReportException::field)
        .isEqualTo("subject.kind");
    assertThat(refusedAs(Grouping.perSubject(), Subject.of("v1", "Pod", "team-a", "", "u")))
        .extracting(InvalidReportException::field)
        .isEqualTo("subject.name");
  }

  @Test
  void anEventEvaluatedIntoANamespaceReportIsTaken() {
    var event = Subject.of("v1", "Event", "team-a", "web-0.17a", "uid-event");
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
    assertThatCode(() -> aggregator.apply(about(event))).doesNotThrowAnyException();
    assertThat(aggregator.flush().changes()).hasSize(1);
  }

  @Test
  void groupAndVersionAndCoreVersionAreOwners() {
    assertThatCode(() -> OwnerReferences.checkOwner(POD)).doesNotThrowAnyException();
    assertThatCode(
            () ->
                OwnerReferences.checkOwner(
                    Subject.of("apps/v1", "Deployment", "team-a", "web", "uid-web")))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                OwnerReferences.checkOwner(
                    Subject.of("events.k8s.io/v1", "Event", "team-a", "e", "uid-e")))
        .as("only the core v1 Event is banned")
        .doesNotThrowAnyException();
  }
}
