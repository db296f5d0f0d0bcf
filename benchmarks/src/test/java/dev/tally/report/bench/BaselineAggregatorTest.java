package dev.tally.report.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;
import java.util.List;
import org.junit.jupiter.api.Test;

class BaselineAggregatorTest {
  private final ReferenceWorkload workload = ReferenceWorkload.reference(10_000);

  private BaselineAggregator loaded() {
    var baseline = new BaselineAggregator();
    workload.partials().forEach(baseline::apply);
    return baseline;
  }

  @Test
  void firstFlushCreatesOneSortedReportPerNamespaceWithExactCounts() {
    var baseline = loaded();
    var writes = baseline.flush();
    assertThat(writes).hasSize(100).allSatisfy(w -> assertThat(w.verb()).isEqualTo("create"));
    assertThat(baseline.published().values())
        .allSatisfy(
            r -> {
              assertThat(r.results()).isSortedAccordingTo(BaselineAggregator.ORDER);
              assertThat(r.summary().total()).isEqualTo(r.results().size());
            });
    assertThat(baseline.published().values().stream().mapToInt(r -> r.results().size()).sum())
        .isEqualTo(10_000);
  }

  @Test
  void aFlushWithoutChangesWritesNothing() {
    var baseline = loaded();
    baseline.flush();
    assertThat(baseline.flush()).isEmpty();
  }

  @Test
  void aRescanUpdatesOnlyItsNamespace() {
    var baseline = loaded();
    baseline.flush();
    List<Result> flipped = workload.flippedResults(5, 0);
    baseline.apply(
        workload.rescan(5, flipped, Timestamp.ofSeconds(ReferenceWorkload.RESCAN_SECONDS)));
    var writes = baseline.flush();
    assertThat(writes)
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.verb()).isEqualTo("update");
              assertThat(w.namespace()).isEqualTo(workload.subjects().get(5).namespace());
              assertThat(w.results()).contains(flipped.get(0));
            });
  }

  @Test
  void anOlderEvaluationLosesAndAnEmptyCoverageRetracts() {
    var baseline = loaded();
    baseline.flush();
    PartialReport initial = workload.partials().get(9);
    baseline.apply(workload.rescan(9, workload.flippedResults(9, 1), Timestamp.ofSeconds(1)));
    assertThat(baseline.flush()).isEmpty();

    baseline.apply(
        workload.rescan(9, List.of(), Timestamp.ofSeconds(ReferenceWorkload.RESCAN_SECONDS)));
    var writes = baseline.flush();
    assertThat(writes)
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.results()).hasSize(90).doesNotContainAnyElementsOf(initial.results());
            });
  }

  @Test
  void deletingTheLastSubjectsOfANamespaceDeletesItsReport() {
    var baseline = loaded();
    baseline.flush();
    for (int i = 0; i < workload.subjects().size(); i += 100) {
      baseline.deleteSubject(workload.subjects().get(i).uid());
    }
    assertThat(baseline.flush())
        .singleElement()
        .satisfies(w -> assertThat(w.verb()).isEqualTo("delete"));
  }
}
