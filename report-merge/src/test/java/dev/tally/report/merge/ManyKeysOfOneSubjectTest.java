package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.testing.AggregatorEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One subject covered by thousands of keys: several producers each cover as many as a partial
 * report may (overlapping one another's), then publish again, later, over keys partly shifted and
 * with other results, partly before any flush. What the aggregator holds is the same whatever the
 * order it was told in: the aggregates equal those of a fresh aggregator given the same reports in
 * a shuffled order, at every grouping, with and without a deletion of the subject between the two
 * rounds.
 */
class ManyKeysOfOneSubjectTest {
  private static final Subject POD = Subject.of("v1", "Pod", "team-a", "big", "uid-big");
  private static final int PRODUCERS = 4;

  /** What one partial report may cover at most (the default cap). */
  private static final int KEYS = 5_000;

  /** How far each producer's keys start from the previous one's: they overlap by the rest. */
  private static final int STRIDE = 3_000;

  /** How far the second round's keys are shifted from the first's. */
  private static final int SHIFT = 500;

  @ParameterizedTest
  @ValueSource(strings = {"namespace", "subject", "policy"})
  void theAggregatesAreTheSameInAnyOrder(String grouping) {
    check(grouping, false);
  }

  @ParameterizedTest
  @ValueSource(strings = {"namespace", "subject", "policy"})
  void theAggregatesAreTheSameInAnyOrderWithADeletionBetweenTheRounds(String grouping) {
    check(grouping, true);
  }

  private static void check(String grouping, boolean deleted) {
    List<PartialReport> first = new ArrayList<>();
    List<PartialReport> second = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      first.add(evaluation(p, 1));
      second.add(evaluation(p, 2));
    }
    Timestamp deletedAt = Timestamp.ofSeconds(1_500); // after the first round, before the second

    ReportAggregator live = aggregator(grouping);
    first.forEach(live::apply);
    if (deleted) {
      live.deleteSubject(POD.namespace(), POD.uid(), deletedAt);
    }
    // half of the second round before anything was flushed: replacing what was only added
    second.subList(0, PRODUCERS / 2).forEach(live::apply);
    List<AggregateReport> cluster = Fixtures.published(live, List.of());
    second.subList(PRODUCERS / 2, PRODUCERS).forEach(live::apply);
    cluster = Fixtures.published(live, cluster);

    List<AggregatorEvent> events = new ArrayList<>();
    first.forEach(p -> events.add(new AggregatorEvent.Apply(p)));
    second.forEach(p -> events.add(new AggregatorEvent.Apply(p)));
    if (deleted) {
      events.add(new AggregatorEvent.Delete(POD.namespace(), POD.uid(), deletedAt));
    }
    Collections.shuffle(events, new Random(Fixtures.SEED));
    ReportAggregator fresh = aggregator(grouping);
    events.forEach(e -> e.applyTo(fresh));

    // every key of the second round, and with no deletion those only the first round covered
    assertThat(live.held().registers())
        .as("registers of the one subject")
        .isEqualTo((PRODUCERS - 1) * STRIDE + KEYS + (deleted ? 0 : SHIFT));
    assertThat(live.held()).isEqualTo(fresh.held());
    List<AggregateReport> aggregates = fresh.aggregates();
    assertThat(aggregates.size()).as("partitions").isGreaterThan(10);
    assertThat(live.aggregates()).isEqualTo(aggregates);
    assertThat(cluster).isEqualTo(Fixtures.published(fresh, List.of()));
  }

  private static ReportAggregator aggregator(String grouping) {
    return ReportAggregator.builder()
        .grouping(
            switch (grouping) {
              case "namespace" -> Grouping.perNamespace();
              case "subject" -> Grouping.perSubject();
              default -> Grouping.perNamespaceAndPolicy();
            })
        .limits(ReportLimits.defaults().withMaxResults(500))
        .build();
  }

  /**
   * Producer {@code p}'s evaluation number {@code round} (1 or 2): {@link #KEYS} keys from {@code p
   * * STRIDE}, shifted by {@link #SHIFT} in the second round; about a third of them with a result,
   * which ones and their status depending on the round.
   */
  private static PartialReport evaluation(int p, int round) {
    int from = p * STRIDE + (round - 1) * SHIFT;
    Set<CoverageKey> coverage = new LinkedHashSet<>();
    List<Result> results = new ArrayList<>();
    for (int k = from; k < from + KEYS; k++) {
      CoverageKey key = CoverageKey.of("source-" + (k % 4), "policy-" + k);
      coverage.add(key);
      if ((k + round + p) % 3 == 0) {
        results.add(
            Result.builder()
                .source(key.source())
                .policy(key.policy())
                .rule("rule-" + (k % 7))
                .status((k + round) % 2 == 0 ? ResultStatus.PASS : ResultStatus.FAIL)
                .message("checked in round " + round)
                .build());
      }
    }
    return PartialReport.builder()
        .producer("producer-" + p)
        .subject(POD)
        .coverage(coverage)
        .results(results)
        .observedAt(Timestamp.ofSeconds(1_000L * round + p))
        .build();
  }
}
