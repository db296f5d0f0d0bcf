package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.EncodedSize;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.api.testing.AggregatorEvent;
import dev.tally.report.api.testing.ModelGen;
import dev.tally.report.api.testing.RandomModel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The output rules of docs/DESIGN.md: canonical form, limits, stable splitting, no-op flushes. */
class OutputProperties {
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  @Test
  void summaryEqualsTheCountsOfTheResults() {
    forEachOutcome(
        (config, a) -> {
          for (AggregateReport report : a.aggregates()) {
            assertThat(report.summary()).isEqualTo(Summary.of(report.results()));
          }
        });
  }

  @Test
  void resultsAreInCanonicalOrderAndTheHashIsTheContentsHash() {
    forEachOutcome(
        (config, a) -> {
          for (AggregateReport report : a.aggregates()) {
            assertThat(report.contentHash()).isEqualTo(ContentHash.of(report));
            List<Result> results = report.results();
            for (int i = 1; i < results.size(); i++) {
              assertThat(new HashSet<>(results)).hasSize(results.size());
            }
          }
        });
  }

  @Test
  void everyPartitionRespectsMaxResultsAndMaxBytes() {
    Fixtures.theory()
        .forAll(ModelGen.seeds())
        .checkAssert(
            seed -> {
              Random r = new Random(seed);
              int maxResults = 1 + r.nextInt(40);
              int maxBytes = ReportLimits.MIN_MAX_BYTES + r.nextInt(8) * 1024;
              AggregatorConfig config = bigGroupConfig(maxResults, maxBytes);
              var a = Fixtures.aggregator(config);
              bigMessages(new RandomModel(r, 40), 60).forEach(a::apply);
              for (AggregateReport report : a.aggregates()) {
                assertThat(report.results()).hasSizeLessThanOrEqualTo(maxResults);
                assertThat(EncodedSize.of(report)).isLessThanOrEqualTo(maxBytes);
                assertThat(report.ref().name()).matches(DNS_SUBDOMAIN).hasSizeLessThan(254);
              }
            });
  }

  @Test
  void partitionsOfAGroupAreDisjointAndCoverIt() {
    Fixtures.forEachStream(
        30,
        (events, r, config) -> {
          var split = Fixtures.replay(config, events);
          var whole =
              Fixtures.replay(
                  Fixtures.config(config.grouping(), config.format(), 1_000_000), events);
          Map<String, List<Result>> byGroup = new HashMap<>();
          for (AggregateReport report : split.aggregates()) {
            byGroup
                .computeIfAbsent(report.labels().get(WireNames.GROUP_LABEL), k -> new ArrayList<>())
                .addAll(report.results());
          }
          Map<String, List<Result>> unsplit = new HashMap<>();
          for (AggregateReport report : whole.aggregates()) {
            unsplit.put(report.labels().get(WireNames.GROUP_LABEL), report.results());
          }
          assertThat(byGroup.keySet()).isEqualTo(unsplit.keySet());
          byGroup.forEach(
              (group, results) -> {
                assertThat(results).doesNotHaveDuplicates();
                assertThat(results).containsExactlyInAnyOrderElementsOf(unsplit.get(group));
              });
        });
  }

  @Test
  void addingOrRemovingOneResultChangesAtMostTwoPartitions() {
    Fixtures.theory()
        .forAll(ModelGen.seeds())
        .checkAssert(
            seed -> {
              Random r = new Random(seed);
              int maxResults = 1 + r.nextInt(8);
              var a =
                  Fixtures.aggregator(bigGroupConfig(maxResults, ReportLimits.DEFAULT_MAX_BYTES));
              RandomModel m = new RandomModel(r, 30);
              List<PartialReport> reports = bigMessages(m, 1 + r.nextInt(25));
              reports.forEach(a::apply);
              Set<List<Result>> before = contents(a.aggregates());

              // one more (or one fewer) result in one register, by a later evaluation
              PartialReport base = reports.get(r.nextInt(reports.size()));
              CoverageKey key = base.effectiveCoverage().iterator().next();
              // the register's whole content: this subject has no other partial report
              List<Result> current = List.of(MergeRule.registerContents(base).get(key));
              List<Result> next = new ArrayList<>(current);
              if (!next.isEmpty() && r.nextBoolean()) {
                next.remove(r.nextInt(next.size()));
              } else {
                next.add(
                    Result.builder()
                        .source(key.source())
                        .policy(key.policy())
                        .rule("added-" + r.nextInt(1000))
                        .status(ResultStatus.FAIL)
                        .resource(base.subject())
                        .build());
              }
              a.apply(
                  PartialReport.builder()
                      .producer("later")
                      .subject(base.subject())
                      .coverage(Set.of(key))
                      .results(next)
                      .observedAt(new Timestamp(100, 0))
                      .build());
              Set<List<Result>> after = contents(a.aggregates());
              Set<List<Result>> gone = new HashSet<>(before);
              gone.removeAll(after);
              Set<List<Result>> come = new HashSet<>(after);
              come.removeAll(before);
              assertThat(gone).as("partitions whose content left").hasSizeLessThanOrEqualTo(2);
              assertThat(come).as("partitions whose content is new").hasSizeLessThanOrEqualTo(2);
            });
  }

  @Test
  void aNewEvaluationWithTheSameVerdictsWritesNothing() {
    Fixtures.forEachStream(
        30,
        (events, r, config) -> {
          var a = Fixtures.replay(config, events);
          a.flush();
          // every subject re-evaluated later, by another producer, with the same verdicts
          var state = a.snapshot();
          state
              .registers()
              .forEach(
                  (id, content) ->
                      a.apply(
                          PartialReport.builder()
                              .producer("rescan")
                              .subject(content.subject())
                              .coverage(Set.of(id.key()))
                              .results(content.results())
                              .observedAt(new Timestamp(1000, r.nextInt(1000)))
                              .build()));
          assertThat(a.flush().isEmpty()).isTrue();
        });
  }

  @Test
  void flushAfterFlushWithNoInputIsEmpty() {
    forEachOutcome(
        (config, a) -> {
          a.flush();
          assertThat(a.flush().isEmpty()).isTrue();
        });
  }

  @Test
  void theFlushesPublishedAddUpToTheAggregates() {
    Fixtures.forEachStream(
        30,
        (events, r, config) -> {
          var a = Fixtures.aggregator(config);
          List<AggregateReport> cluster = new ArrayList<>();
          for (AggregatorEvent e : events) {
            e.applyTo(a);
            if (r.nextInt(3) == 0) {
              cluster = Fixtures.published(a, cluster);
            }
          }
          cluster = Fixtures.published(a, cluster);
          assertThat(cluster).isEqualTo(a.aggregates());
        });
  }

  @Test
  void applyingTheDiffToObservedYieldsDesired() {
    Fixtures.theory()
        .forAll(ModelGen.events(25), ModelGen.events(25), ModelGen.seeds())
        .checkAssert(
            (earlier, later, seed) -> {
              Random r = new Random(seed);
              AggregatorConfig config = Fixtures.randomConfig(r);
              List<AggregateReport> observed = Fixtures.replay(config, earlier).aggregates();
              var a = Fixtures.replay(config, later);
              ChangeSet diff = a.resync(observed);
              assertThat(ReportDiff.apply(observed, diff)).isEqualTo(a.aggregates());
              // and after the resync the aggregator takes it as published
              assertThat(a.flush().isEmpty()).isTrue();
            });
  }

  @Test
  void theDiffNeverTouchesAnObjectTallyDoesNotOwn() {
    Fixtures.theory()
        .forAll(ModelGen.events(20))
        .checkAssert(
            events -> {
              AggregatorConfig config =
                  Fixtures.config(Grouping.perNamespace(), ReportFormat.WGPOLICY, 1000);
              var a = Fixtures.replay(config, events);
              List<AggregateReport> observed = new ArrayList<>();
              Set<ReportRef> foreign = new HashSet<>();
              for (AggregateReport d : a.aggregates()) {
                AggregateReport mine =
                    new AggregateReport(
                        d.ref(),
                        Map.of("owner", "someone"),
                        d.scope(),
                        d.owner(),
                        d.configuration(),
                        List.of(),
                        Summary.EMPTY,
                        "");
                observed.add(mine);
                foreign.add(d.ref());
              }
              ReportRef stray =
                  new ReportRef(dev.tally.report.api.ReportKind.POLICY_REPORT, "alpha", "not-ours");
              observed.add(
                  new AggregateReport(
                      stray,
                      Map.of(),
                      java.util.Optional.empty(),
                      java.util.Optional.empty(),
                      java.util.Optional.empty(),
                      List.of(),
                      Summary.EMPTY,
                      ""));
              foreign.add(stray);
              ChangeSet diff = a.resync(observed);
              diff.changes().forEach(c -> assertThat(foreign).doesNotContain(c.ref()));
            });
  }

  private interface Outcome {
    void check(AggregatorConfig config, DefaultReportAggregator aggregator);
  }

  private static void forEachOutcome(Outcome outcome) {
    Fixtures.forEachStream(
        30, (events, r, config) -> outcome.check(config, Fixtures.replay(config, events)));
  }

  /** Everything in one group, so splitting has something to split. */
  static AggregatorConfig bigGroupConfig(int maxResults, int maxBytes) {
    return new AggregatorConfig(
        Grouping.custom("one", (s, k) -> "all"),
        ReportFormat.WGPOLICY,
        new ReportLimits(maxResults, maxBytes, Set.of()),
        InputCaps.defaults(),
        3600);
  }

  /** Partial reports about pods of one namespace, with messages of up to 2 KiB. */
  static List<PartialReport> bigMessages(RandomModel m, int count) {
    List<PartialReport> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Subject s = Subject.of("v1", "Pod", "alpha", "pod-" + i, "uid-" + i);
      PartialReport p = m.partial(s);
      List<Result> results = new ArrayList<>();
      for (Result x : p.results()) {
        results.add(x.toBuilder().message("m".repeat(m.random().nextInt(2048))).build());
      }
      out.add(
          PartialReport.builder()
              .producer(p.producer())
              .subject(s)
              .coverage(p.effectiveCoverage())
              .results(results)
              .observedAt(p.observedAt())
              .build());
    }
    return out;
  }

  private static Set<List<Result>> contents(List<AggregateReport> reports) {
    Set<List<Result>> out = new HashSet<>();
    for (AggregateReport report : reports) {
      out.add(report.results());
    }
    return out;
  }
}
