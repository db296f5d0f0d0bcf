package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.testing.ModelGen;
import dev.tally.report.api.testing.ResultSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The aggregator's value table changes instances, never values, digests or sizes. */
class ValueTableProperties {

  /** Copies of every string, as a JSON decoder makes them. */
  @SuppressWarnings("StringOperationCanBeSimplified")
  private static Result decoded(Result r) {
    List<Subject> resources = new ArrayList<>();
    for (Subject s : r.resources()) {
      resources.add(
          new Subject(
              new String(s.apiVersion()),
              new String(s.kind()),
              new String(s.namespace()),
              new String(s.name()),
              new String(s.uid())));
    }
    return r.toBuilder()
        .source(new String(r.source()))
        .policy(new String(r.policy()))
        .rule(new String(r.rule()))
        .category(new String(r.category()))
        .message(new String(r.message()))
        .resources(resources)
        .build();
  }

  @Test
  void heldResultsEqualTheirInputAndShareInstances() {
    Fixtures.theory()
        .forAll(ModelGen.partials())
        .checkAssert(
            p -> {
              ValueTable table = new ValueTable();
              Subject subject = table.subject(p.subject());
              List<Subject> subjectOnly = List.of(subject);
              for (Result r : p.results()) {
                Result first = table.result(r, subjectOnly);
                Result second = table.result(decoded(r), subjectOnly);
                Result expected =
                    r.resources().isEmpty() && r.resourceSelector().isEmpty()
                        ? r.toBuilder().resources(subjectOnly).build()
                        : r;
                assertThat(first).isEqualTo(expected);
                assertThat(second).isEqualTo(expected);
                assertThat(second.message()).isSameAs(first.message());
                assertThat(second.policy()).isSameAs(first.policy());
                for (int i = 0; i < first.resources().size(); i++) {
                  assertThat(second.resources().get(i)).isSameAs(first.resources().get(i));
                }
                assertThat(second.digest())
                    .isEqualTo(ResultSpec.digest(second))
                    .isEqualTo(ResultSpec.digest(expected));
                assertThat(second.encodedSize())
                    .isEqualTo(ResultSpec.encodedSize(second))
                    .isEqualTo(ResultSpec.encodedSize(expected));
              }
            });
  }

  @Test
  void aResultOfAnotherSubjectStatingTheSameIsMadeOfTheHeldValues() {
    Fixtures.theory()
        .forAll(ModelGen.partials())
        .checkAssert(
            p -> {
              ValueTable table = new ValueTable();
              Subject subject = table.subject(p.subject());
              Subject other =
                  table.subject(
                      new Subject(
                          subject.apiVersion(),
                          subject.kind(),
                          subject.namespace(),
                          subject.name() + "-other",
                          subject.uid() + "-other"));
              List<Subject> otherOnly = List.of(other);
              for (Result r : p.results()) {
                Result first = table.result(r, List.of(subject));
                if (!first.resources().equals(List.of(subject))) {
                  continue; // about some other object: not a result of the subject's own
                }
                Result aboutOther = decoded(r.toBuilder().resources(otherOnly).build());
                Result second = table.result(aboutOther, otherOnly);
                assertThat(second).isEqualTo(aboutOther);
                assertThat(second.resources()).isSameAs(otherOnly);
                assertThat(second.source()).isSameAs(first.source());
                assertThat(second.policy()).isSameAs(first.policy());
                assertThat(second.rule()).isSameAs(first.rule());
                assertThat(second.category()).isSameAs(first.category());
                assertThat(second.message()).isSameAs(first.message());
                assertThat(second.digest()).isEqualTo(ResultSpec.digest(aboutOther));
                assertThat(second.encodedSize()).isEqualTo(ResultSpec.encodedSize(aboutOther));
              }
            });
  }

  @Test
  void rebuildKeepsExactlyWhatLiveRegistersUse() {
    Fixtures.theory()
        .withExamples(Fixtures.EXAMPLES / 4)
        .forAll(ModelGen.partials(), ModelGen.partials())
        .checkAssert(
            (kept, dropped) -> {
              ValueTable table = new ValueTable();
              List<Register> live = registers(table, kept);
              registers(table, dropped);
              table.rebuild(live);
              // what live registers use is still held: the same instances come back
              for (Register r : live) {
                assertThat(
                        table.subject(
                            new Subject(
                                new String(r.subject.apiVersion()),
                                new String(r.subject.kind()),
                                new String(r.subject.namespace()),
                                new String(r.subject.name()),
                                new String(r.subject.uid()))))
                    .isSameAs(r.subject);
                for (Result x : r.results) {
                  assertThat(table.string(new String(x.message()))).isSameAs(x.message());
                }
              }
              // a value only the dropped report used is gone: a fresh copy is held instead
              String only = "only-in-dropped-" + dropped.subject().uid();
              table.string(only);
              table.rebuild(live);
              String copy = new String(only);
              assertThat(table.string(copy)).isSameAs(copy);
            });
  }

  private static List<Register> registers(ValueTable table, PartialReport p) {
    Subject subject = table.subject(p.subject());
    List<Subject> subjectOnly = List.of(subject);
    Map<CoverageKey, Result[]> contents =
        MergeRule.registerContents(p, r -> table.result(r, subjectOnly));
    List<Register> out = new ArrayList<>();
    contents.forEach(
        (key, results) -> out.add(new Register(subject, key, EvaluationOrder.of(p), results)));
    return out;
  }
}
