package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.testing.AggregatorEvent;
import dev.tally.report.api.testing.ModelGen;
import dev.tally.report.api.testing.RandomModel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The laws of docs/DESIGN.md, "Merge semantics", checked on the aggregator itself. */
class AggregatorLawProperties {

  @Test
  void anyPermutationOfEventsGivesTheSameAggregates() {
    Fixtures.forEachStream(
        25,
        (events, r, config) -> {
          List<AggregatorEvent> shuffled = new ArrayList<>(events);
          Collections.shuffle(shuffled, r);
          assertThat(Fixtures.replay(config, shuffled).aggregates())
              .isEqualTo(Fixtures.replay(config, events).aggregates());
        });
  }

  @Test
  void incrementalEqualsBatch() {
    Fixtures.forEachStream(
        25,
        (events, r, config) -> {
          var incremental = Fixtures.aggregator(config);
          for (AggregatorEvent e : events) {
            e.applyTo(incremental);
            if (r.nextInt(3) == 0) {
              incremental.flush();
            }
          }
          ReportState batchState = Fixtures.fold(events);
          var batch = DefaultReportAggregator.fromState(config, batchState);
          assertThat(incremental.snapshot()).isEqualTo(batchState);
          assertThat(incremental.aggregates()).isEqualTo(batch.aggregates());
        });
  }

  @Test
  void aLateOlderReportNeverWins() {
    Fixtures.theory()
        .forAll(ModelGen.models())
        .checkAssert(
            m -> {
              Subject s = m.subject();
              PartialReport a = m.partial(s);
              PartialReport b = m.partial(s);
              if (EvaluationOrder.compare(a, b) == 0) {
                b =
                    PartialReport.builder()
                        .producer(a.producer())
                        .subject(s)
                        .coverage(b.effectiveCoverage())
                        .results(b.results())
                        .observedAt(a.observedAt())
                        .generation(a.generation() + 1)
                        .build();
              }
              PartialReport later = EvaluationOrder.compare(a, b) >= 0 ? a : b;
              PartialReport earlier = later == a ? b : a;
              var config = Fixtures.randomConfig(m.random());
              var inOrder = Fixtures.aggregator(config);
              inOrder.apply(earlier);
              inOrder.apply(later);
              var lateOlder = Fixtures.aggregator(config);
              lateOlder.apply(later);
              lateOlder.apply(earlier);
              assertThat(lateOlder.aggregates()).isEqualTo(inOrder.aggregates());
              // and for every key the later one covers, its results are what the aggregates hold
              for (CoverageKey key : later.effectiveCoverage()) {
                assertThat(resultsOf(lateOlder.aggregates(), s.uid(), key))
                    .containsExactlyInAnyOrderElementsOf(
                        normalized(later, key, lateOlder.config()));
              }
            });
  }

  /**
   * Two evaluations of one (producer, subject) that tie in time, generation and producer but state
   * different things: the cluster holds one object per (producer, subject), and the publisher keeps
   * the one {@link EvaluationOrder} says is later. The live aggregator, which may have seen both in
   * either order, must hold exactly what a rebuild from that one object holds, on every key.
   */
  @Test
  void underTiesTheLiveStateEqualsARebuildFromWhatTheClusterKeeps() {
    Fixtures.theory()
        .forAll(ModelGen.models())
        .checkAssert(
            m -> {
              Subject s = m.subject();
              PartialReport a = m.partial(s);
              PartialReport other = m.partial(s);
              // the same policies, other results: what a producer reusing a generation writes
              Set<CoverageKey> covered = a.effectiveCoverage();
              PartialReport b =
                  PartialReport.builder()
                      .producer(a.producer())
                      .subject(s)
                      .coverage(covered)
                      .results(
                          other.results().stream()
                              .filter(r -> covered.contains(r.coverageKey()))
                              .toList())
                      .observedAt(a.observedAt())
                      .generation(a.generation())
                      .build();
              PartialReport kept = EvaluationOrder.supersedes(b, a) ? b : a;
              var config = Fixtures.randomConfig(m.random());
              var rebuild = Fixtures.aggregator(config);
              rebuild.apply(kept);
              for (PartialReport[] seen : new PartialReport[][] {{a, b}, {b, a}}) {
                var live = Fixtures.aggregator(config);
                live.apply(seen[0]);
                live.apply(seen[1]);
                assertThat(live.aggregates()).isEqualTo(rebuild.aggregates());
              }
              assertThat(EvaluationOrder.compare(a, b) == 0)
                  .as("a tie in order is a tie in content")
                  .isEqualTo(
                      a.coverage().equals(b.coverage())
                          && counts(a.results()).equals(counts(b.results())));
            });
  }

  @Test
  void aDeletedSubjectIsNeverResurrectedByAnOlderReport() {
    Fixtures.theory()
        .forAll(ModelGen.models())
        .checkAssert(
            m -> {
              Subject s = m.subject();
              PartialReport before = m.partial(s);
              Timestamp deletedAt = before.observedAt();
              var aggregator = Fixtures.aggregator(Fixtures.randomConfig(m.random()));
              aggregator.deleteSubject(s.namespace(), s.uid(), deletedAt);
              aggregator.apply(before); // arrives late, observed at the deletion
              PartialReport older =
                  PartialReport.builder()
                      .producer(m.pick(RandomModel.PRODUCERS))
                      .subject(s)
                      .coverage(before.effectiveCoverage())
                      .results(before.results())
                      .observedAt(new Timestamp(0, 0))
                      .build();
              aggregator.apply(older);
              assertThat(uidsIn(aggregator.aggregates())).doesNotContain(s.uid());
              assertThat(aggregator.resultCount()).isZero();
            });
  }

  @Test
  void absenceInsideCoverageRetracts() {
    Fixtures.theory()
        .forAll(ModelGen.models())
        .checkAssert(
            m -> {
              Subject s = m.subject();
              PartialReport first = m.partial(s);
              var aggregator = Fixtures.aggregator(Fixtures.randomConfig(m.random()));
              aggregator.apply(first);
              PartialReport retraction =
                  PartialReport.builder()
                      .producer(m.pick(RandomModel.PRODUCERS))
                      .subject(s)
                      .coverage(first.effectiveCoverage())
                      .observedAt(first.observedAt().plusSeconds(1))
                      .build();
              aggregator.apply(retraction);
              assertThat(uidsIn(aggregator.aggregates())).doesNotContain(s.uid());
            });
  }

  @Test
  void keysOutsideCoverageAreKept() {
    Fixtures.theory()
        .forAll(ModelGen.models())
        .checkAssert(
            m -> {
              Subject s = m.subject();
              PartialReport first = m.partial(s);
              var config = Fixtures.randomConfig(m.random());
              var aggregator = Fixtures.aggregator(config);
              aggregator.apply(first);
              CoverageKey other = CoverageKey.of("elsewhere", "unrelated");
              aggregator.apply(
                  PartialReport.builder()
                      .producer("other")
                      .subject(s)
                      .coverage(Set.of(other))
                      .observedAt(first.observedAt().plusSeconds(5))
                      .build());
              for (CoverageKey key : first.effectiveCoverage()) {
                assertThat(resultsOf(aggregator.aggregates(), s.uid(), key))
                    .containsExactlyInAnyOrderElementsOf(normalized(first, key, config));
              }
            });
  }

  @Test
  void livenessIsAFilterThatCommutesWithEveryEvent() {
    Fixtures.forEachStream(
        20,
        (events, r, config) -> {
          Set<CoverageKey> live = new HashSet<>();
          for (String src : RandomModel.SOURCES) {
            for (String p : RandomModel.POLICIES) {
              if (r.nextBoolean()) {
                live.add(CoverageKey.of(src, p));
              }
            }
          }
          Liveness liveness =
              Liveness.only(live).withRetiredRule(CoverageKey.of("kyverno", "p0"), "r1");
          var early = Fixtures.aggregator(config);
          int at = r.nextInt(events.size() + 1);
          for (int i = 0; i < events.size(); i++) {
            if (i == at) {
              early.setLiveness(liveness);
            }
            events.get(i).applyTo(early);
            if (r.nextBoolean()) {
              early.flush();
            }
          }
          early.setLiveness(liveness);
          var late = Fixtures.replay(config, events);
          late.setLiveness(liveness);
          assertThat(early.aggregates()).isEqualTo(late.aggregates());
          for (AggregateReport report : late.aggregates()) {
            for (Result x : report.results()) {
              assertThat(liveness.isLive(x.coverageKey(), x.rule())).isTrue();
            }
          }
          // and back: every policy live again restores everything
          late.setLiveness(Liveness.all());
          assertThat(late.aggregates()).isEqualTo(Fixtures.replay(config, events).aggregates());
        });
  }

  @Test
  void scopedLivenessHidesOnlyDeadPoliciesOfTheGovernedSources() {
    Fixtures.forEachStream(
        20,
        (events, r, config) -> {
          Set<String> governed = new HashSet<>();
          for (String src : RandomModel.SOURCES) {
            if (r.nextBoolean()) {
              governed.add(src);
            }
          }
          Set<CoverageKey> live = new HashSet<>();
          Set<CoverageKey> sameUnscoped = new HashSet<>();
          for (String src : RandomModel.SOURCES) {
            for (String p : RandomModel.POLICIES) {
              CoverageKey key = CoverageKey.of(src, p);
              if (!governed.contains(src)) {
                sameUnscoped.add(key); // an ungoverned source: every policy of it is live
              } else if (r.nextBoolean()) {
                live.add(key);
                sameUnscoped.add(key);
              }
            }
          }
          Liveness scoped = Liveness.onlyAmong(governed, live);
          var early = Fixtures.aggregator(config);
          int at = r.nextInt(events.size() + 1);
          for (int i = 0; i < events.size(); i++) {
            if (i == at) {
              early.setLiveness(scoped);
            }
            events.get(i).applyTo(early);
            if (r.nextBoolean()) {
              early.flush();
            }
          }
          early.setLiveness(scoped);
          var unscoped = Fixtures.replay(config, events);
          unscoped.setLiveness(Liveness.only(sameUnscoped));
          // the same as the unscoped liveness that names every policy of the other sources live
          assertThat(early.aggregates()).isEqualTo(unscoped.aggregates());

          var everything = Fixtures.replay(config, events);
          List<Result> kept = new ArrayList<>();
          early.aggregates().forEach(a -> kept.addAll(a.results()));
          for (AggregateReport report : everything.aggregates()) {
            for (Result x : report.results()) {
              boolean shouldStay =
                  !governed.contains(x.coverageKey().source()) || live.contains(x.coverageKey());
              assertThat(kept.contains(x)).as("%s", x).isEqualTo(shouldStay);
            }
          }
          // and back: the governed dead policies' results return when they are live again
          early.setLiveness(Liveness.all());
          assertThat(early.aggregates()).isEqualTo(everything.aggregates());
        });
  }

  static List<Result> resultsOf(List<AggregateReport> reports, String uid, CoverageKey key) {
    List<Result> out = new ArrayList<>();
    for (AggregateReport report : reports) {
      for (Result r : report.results()) {
        if (r.coverageKey().equals(key) && mentions(r, uid)) {
          out.add(r);
        }
      }
    }
    return out;
  }

  /** What the aggregator keeps of a partial's results for a key: normalised and deduplicated. */
  static List<Result> normalized(PartialReport p, CoverageKey key, AggregatorConfig config) {
    Result[] results = MergeRule.registerContents(p).get(key);
    List<Result> out = new ArrayList<>();
    for (Result r : results) {
      if (config.limits().keeps(r.status()) && mentions(r, p.subject().uid())) {
        out.add(r);
      }
    }
    return out;
  }

  private static boolean mentions(Result r, String uid) {
    return r.resources().stream().anyMatch(s -> s.uid().equals(uid));
  }

  static Set<String> uidsIn(List<AggregateReport> reports) {
    Set<String> uids = new HashSet<>();
    for (AggregateReport report : reports) {
      for (Result r : report.results()) {
        r.resources().forEach(s -> uids.add(s.uid()));
      }
      report.scope().ifPresent(s -> uids.add(s.uid()));
    }
    uids.remove("");
    return uids;
  }

  private static java.util.Map<Result, Long> counts(List<Result> results) {
    return results.stream()
        .collect(
            java.util.stream.Collectors.groupingBy(
                java.util.function.Function.identity(), java.util.stream.Collectors.counting()));
  }
}
