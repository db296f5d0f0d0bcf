package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.testing.AggregatorEvent;
import dev.tally.report.api.testing.ModelGen;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A re-evaluation that states the same verdicts at a later time (a background scan over unchanged
 * resources: every result's timestamp moves, nothing else does) writes nothing: the flush is empty,
 * a resync against the cluster finds nothing to do, and the state itself holds the later
 * evaluation, so every law about the state is untouched. And the converse: a re-evaluation that
 * changes one verdict writes.
 */
class UnchangedVerdictsProperties {

  private static final long LATER = 100; // every generated time is within [0, 6) s

  @Test
  void aReEvaluationWithTheSameVerdictsAtALaterTimeWritesNothing() {
    Fixtures.theory()
        .forAll(ModelGen.events(20), ModelGen.seeds())
        .checkAssert(
            (events, seed) -> {
              List<PartialReport> applies = applies(events);
              AggregatorConfig config = Fixtures.randomConfig(new Random(seed));
              var a = Fixtures.aggregator(config);
              applies.forEach(a::apply);
              List<AggregateReport> cluster = ReportDiff.apply(List.of(), a.flush());

              List<PartialReport> again = reEvaluations(applies, null);
              again.forEach(a::apply);

              assertThat(a.flush().isEmpty()).as("nothing but times moved").isTrue();
              assertThat(a.resync(cluster).isEmpty()).isTrue();
              // the state holds the later evaluations; the cluster the same verdicts, earlier
              assertThat(withoutTimes(a.aggregates())).isEqualTo(withoutTimes(cluster));
              var rebuilt = Fixtures.aggregator(config);
              again.forEach(rebuilt::apply);
              assertThat(a.aggregates()).isEqualTo(rebuilt.aggregates());
            });
  }

  @Test
  void aReEvaluationThatChangesOneVerdictWritesIt() {
    Fixtures.theory()
        .forAll(ModelGen.events(20), ModelGen.seeds())
        .checkAssert(
            (events, seed) -> {
              List<PartialReport> applies = applies(events);
              AggregatorConfig config = Fixtures.randomConfig(new Random(seed));
              var a = Fixtures.aggregator(config);
              applies.forEach(a::apply);
              List<AggregateReport> cluster = ReportDiff.apply(List.of(), a.flush());
              if (a.aggregates().stream().allMatch(r -> r.results().isEmpty())) {
                return; // no verdict to change
              }
              String changed = "changed since the last evaluation";
              reEvaluations(applies, changed).forEach(a::apply);
              var written = a.flush();
              assertThat(written.isEmpty()).as("every message changed").isFalse();
              assertThat(ReportDiff.apply(cluster, written)).isEqualTo(a.aggregates());
            });
  }

  private static List<PartialReport> applies(List<AggregatorEvent> events) {
    // deletions aside: a re-evaluation after a deletion would bring the subject back
    List<PartialReport> out = new ArrayList<>();
    for (AggregatorEvent e : events) {
      if (e instanceof AggregatorEvent.Apply apply) {
        out.add(apply.partial());
      }
    }
    return out;
  }

  /**
   * Each register of the state the partial reports make, evaluated again {@link #LATER} seconds
   * later by the producer that last evaluated it: the same results, with a new message if {@code
   * message}.
   */
  private static List<PartialReport> reEvaluations(List<PartialReport> applies, String message) {
    ReportState state = ReportState.empty();
    for (PartialReport p : applies) {
      state = state.apply(p);
    }
    List<PartialReport> out = new ArrayList<>();
    state
        .registers()
        .forEach(
            (id, c) -> {
              List<Result> results = new ArrayList<>();
              for (Result r : c.results()) {
                var b = r.toBuilder();
                r.timestamp().ifPresent(t -> b.timestamp(t.seconds() + LATER, t.nanos()));
                if (message != null) {
                  b.message(message);
                }
                results.add(b.build());
              }
              Timestamp at = c.observedAt();
              out.add(
                  PartialReport.builder()
                      .producer(c.producer())
                      .subject(c.subject())
                      .coverage(Set.of(id.key()))
                      .results(results)
                      .observedAt(at.seconds() + LATER, at.nanos())
                      .build());
            });
    return out;
  }

  private static List<AggregateReport> withoutTimes(List<AggregateReport> reports) {
    List<AggregateReport> out = new ArrayList<>();
    for (AggregateReport r : reports) {
      List<Result> results = new ArrayList<>();
      for (Result x : r.results()) {
        results.add(x.toBuilder().timestamp(null).build());
      }
      out.add(
          new AggregateReport(
              r.ref(),
              r.labels(),
              r.scope(),
              r.owner(),
              r.configuration(),
              results,
              r.summary(),
              r.contentHash()));
    }
    return out;
  }
}
