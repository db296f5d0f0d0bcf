package dev.tally.report.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.EvaluationOrder;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ReferenceWorkloadTest {
  private final ReferenceWorkload workload = ReferenceWorkload.reference(10_000);

  @Test
  void hasOnePartialOfTenResultsPerSubjectSpreadOverAHundredNamespaces() {
    assertThat(workload.partials()).hasSize(1_000);
    assertThat(workload.partials()).allSatisfy(p -> assertThat(p.results()).hasSize(10));
    assertThat(workload.partials().stream().map(p -> p.subject().namespace()).distinct())
        .hasSize(100);
    assertThat(workload.partials().stream().map(p -> p.subject().uid()).distinct()).hasSize(1_000);
    assertThat(workload.partials())
        .allSatisfy(p -> assertThat(p.producer()).isEqualTo("background"));
  }

  @Test
  void coversFivePoliciesOfTwoRulesPerSubjectOutOfTwenty() {
    Set<String> policies = new HashSet<>();
    Map<String, Set<String>> rules = new HashMap<>();
    for (PartialReport p : workload.partials()) {
      assertThat(p.coverage()).hasSize(5);
      for (Result r : p.results()) {
        assertThat(p.coverage()).contains(CoverageKey.of(r.source(), r.policy()));
        policies.add(r.policy());
        rules.computeIfAbsent(r.policy(), k -> new HashSet<>()).add(r.rule());
      }
    }
    assertThat(policies).hasSize(20);
    assertThat(rules.values()).allSatisfy(r -> assertThat(r).hasSize(2));
  }

  @Test
  void statusesAreMostlyPassAndMessagesRepeatPerRule() {
    var statuses =
        workload.partials().stream()
            .flatMap(p -> p.results().stream())
            .collect(Collectors.groupingBy(Result::status, Collectors.counting()));
    assertThat(statuses.get(ResultStatus.PASS)).isBetween(8_800L, 9_200L);
    assertThat(statuses.get(ResultStatus.FAIL)).isPositive();
    long messages =
        workload.partials().stream()
            .flatMap(p -> p.results().stream())
            .map(Result::message)
            .distinct()
            .count();
    assertThat(messages).isLessThanOrEqualTo(40 * 5);
  }

  @Test
  void theSameSeedGivesEqualWorkloadsAndAnotherSeedAnother() {
    var again = ReferenceWorkload.reference(10_000);
    assertThat(again.partials()).isEqualTo(workload.partials());
    var other = ReferenceWorkload.generate(WorkloadShape.reference(10_000), 42);
    assertThat(other.partials()).isNotEqualTo(workload.partials());
  }

  @Test
  void decodedResultsOwnTheirStringsAndSharedOnesShareThem() {
    Map<String, Boolean> seen = new IdentityHashMap<>();
    workload.partials().forEach(p -> p.results().forEach(r -> seen.put(r.message(), true)));
    assertThat(seen).hasSize(10_000);

    var shared =
        ReferenceWorkload.generate(
            WorkloadShape.reference(10_000), ReferenceWorkload.SEED, StringSharing.SHARED);
    Map<String, Boolean> sharedSeen = new IdentityHashMap<>();
    shared.partials().forEach(p -> p.results().forEach(r -> sharedSeen.put(r.message(), true)));
    assertThat(sharedSeen.size()).isLessThanOrEqualTo(200);
    assertThat(shared.partials()).isEqualTo(workload.partials());
  }

  @Test
  void aRescanIsLaterAndDiffersInExactlyTheFlippedResult() {
    PartialReport initial = workload.partials().get(7);
    var flipped = workload.flippedResults(7, 3);
    PartialReport rescan =
        workload.rescan(7, flipped, Timestamp.ofSeconds(ReferenceWorkload.RESCAN_SECONDS));
    assertThat(EvaluationOrder.supersedes(rescan, initial)).isTrue();
    assertThat(rescan.coverage()).isEqualTo(initial.coverage());
    for (int i = 0; i < 10; i++) {
      if (i == 3) {
        assertThat(flipped.get(i).status()).isNotEqualTo(initial.results().get(i).status());
      } else {
        assertThat(flipped.get(i)).isEqualTo(initial.results().get(i));
      }
    }
  }
}
