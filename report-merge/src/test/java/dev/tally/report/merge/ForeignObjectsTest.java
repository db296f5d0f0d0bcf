package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.api.testing.AggregatorEvent;
import dev.tally.report.api.testing.ModelGen;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * An object the layout does not own that sits at a desired name (docs/DESIGN.md §6, "Ownership"): a
 * resync skips it, and no later flush writes over it or deletes it either; the next resync that
 * finds the name free creates the aggregate.
 */
class ForeignObjectsTest {
  private static final Subject POD = Subject.of("v1", "Pod", "shop", "web-0", "uid-web-0");
  private static final Subject OTHER = Subject.of("v1", "Pod", "shop", "web-1", "uid-web-1");

  private static PartialReport partial(Subject subject, long at, ResultStatus... statuses) {
    List<Result> results = new ArrayList<>();
    for (int i = 0; i < statuses.length; i++) {
      results.add(
          Result.builder()
              .source("kyverno")
              .policy("require-labels")
              .rule("check-" + i)
              .status(statuses[i])
              .build());
    }
    return PartialReport.builder()
        .producer("background")
        .subject(subject)
        .coverage(Set.of(CoverageKey.of("kyverno", "require-labels")))
        .results(results)
        .observedAt(Timestamp.ofSeconds(at))
        .build();
  }

  /** {@code report} as another tool's: {@code managed-by: kyverno}, its content changed. */
  private static AggregateReport kyvernos(AggregateReport report) {
    Map<String, String> labels = new HashMap<>(report.labels());
    labels.put(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_KYVERNO);
    return new AggregateReport(
        report.ref(),
        labels,
        report.scope(),
        report.owner(),
        report.configuration(),
        List.of(),
        dev.tally.report.api.Summary.EMPTY,
        "");
  }

  @Test
  void afterAResyncSkipsAForeignObjectAtADesiredNameNoFlushWritesOrDeletesIt() {
    for (Grouping grouping : Fixtures.GROUPINGS) {
      ReportAggregator a = ReportAggregator.builder().grouping(grouping).build();
      a.apply(partial(POD, 10, ResultStatus.FAIL));
      AggregateReport foreign = kyvernos(a.aggregates().get(0));

      ChangeSet resync = a.resync(List.of(foreign));
      assertThat(resync.isEmpty()).as("%s: the resync skips it", grouping).isTrue();

      // the group changes: its partition at the foreign object's name is not written
      a.apply(partial(POD, 20, ResultStatus.PASS));
      ChangeSet changed = a.flush();
      assertThat(changed.changes())
          .as("%s: nothing is written over %s", grouping, foreign.ref())
          .noneMatch(c -> c.ref().equals(foreign.ref()));

      // the group empties: the foreign object is not deleted either
      a.apply(partial(POD, 30));
      assertThat(a.flush().changes())
          .as("%s: nothing deletes %s", grouping, foreign.ref())
          .noneMatch(c -> c.ref().equals(foreign.ref()));
    }
  }

  /**
   * For any state, any of its aggregates found held by foreign objects and any later events: no
   * resync or flush ever writes or deletes a foreign object, and once they are gone the next resync
   * brings the cluster to exactly the desired aggregates.
   */
  @Test
  void noWriteEverTouchesAForeignObjectAndTheNameIsTakenOnceItIsFree() {
    Fixtures.theory()
        .forAll(ModelGen.events(15), ModelGen.events(15), ModelGen.seeds())
        .checkAssert(
            (earlier, later, seed) -> {
              Random random = new Random(seed);
              AggregatorConfig config = Fixtures.randomConfig(random);
              var a = Fixtures.replay(config, earlier);
              List<AggregateReport> cluster = new ArrayList<>();
              Set<ReportRef> foreign = new HashSet<>();
              for (AggregateReport d : a.aggregates()) {
                if (random.nextBoolean()) {
                  cluster.add(kyvernos(d));
                  foreign.add(d.ref());
                } else if (random.nextBoolean()) {
                  cluster.add(d);
                }
              }
              ChangeSet resync = a.resync(cluster);
              assertThat(resync.changes()).noneMatch(c -> foreign.contains(c.ref()));
              cluster = ReportDiff.apply(cluster, resync);
              for (AggregatorEvent e : later) {
                e.applyTo(a);
                if (random.nextBoolean()) {
                  ChangeSet flushed = a.flush();
                  assertThat(flushed.changes())
                      .as("after %s", e)
                      .noneMatch(c -> foreign.contains(c.ref()));
                  cluster = ReportDiff.apply(cluster, flushed);
                }
              }
              ChangeSet last = a.flush();
              assertThat(last.changes()).noneMatch(c -> foreign.contains(c.ref()));
              cluster = ReportDiff.apply(cluster, last);

              cluster.removeIf(r -> foreign.contains(r.ref()));
              assertThat(ReportDiff.apply(cluster, a.resync(cluster))).isEqualTo(a.aggregates());
              assertThat(a.flush().isEmpty()).isTrue();
            });
  }

  @Test
  void aNameFreedByTheForeignObjectIsCreatedAtTheNextResync() {
    ReportAggregator a = ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
    a.apply(partial(POD, 10, ResultStatus.FAIL));
    AggregateReport foreign = kyvernos(a.aggregates().get(0));
    a.resync(List.of(foreign));
    a.apply(partial(OTHER, 10, ResultStatus.PASS));
    assertThat(a.flush().isEmpty()).isTrue();

    ChangeSet freed = a.resync(List.of());

    assertThat(freed.creates()).hasSize(1);
    assertThat(freed.creates().get(0).report()).isEqualTo(a.aggregates().get(0));
    assertThat(a.flush().isEmpty()).isTrue();
  }

  /** A resync of some objects finds a foreign object the same way, and a name freed again. */
  @Test
  void aResyncOfSomeObjectsHoldsBackAndFreesForeignNamesToo() {
    ReportAggregator a = ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
    a.apply(partial(POD, 10, ResultStatus.FAIL));
    a.flush();
    AggregateReport foreign = kyvernos(a.aggregates().get(0));

    assertThat(a.resyncOnly(List.of(foreign.ref()), List.of(foreign)).isEmpty()).isTrue();
    a.apply(partial(OTHER, 10, ResultStatus.PASS));
    assertThat(a.flush().isEmpty()).as("held back").isTrue();
    assertThat(a.resyncOnly(List.of(foreign.ref()), List.of(foreign)).isEmpty()).isTrue();

    ChangeSet freed = a.resyncOnly(List.of(foreign.ref()), List.of());

    assertThat(freed.creates()).extracting(c -> c.report()).containsExactly(a.aggregates().get(0));
    assertThat(a.flush().isEmpty()).isTrue();
  }

  /** One partition of a split group is foreign: the others are written as usual. */
  @Test
  void onlyThePartitionAtTheForeignNameIsHeldBack() {
    ReportAggregator a =
        ReportAggregator.builder()
            .grouping(Grouping.perNamespace())
            .limits(ReportLimits.defaults().withMaxResults(2))
            .build();
    a.apply(partial(POD, 10, ResultStatus.FAIL, ResultStatus.FAIL, ResultStatus.FAIL));
    List<AggregateReport> desired = a.aggregates();
    assertThat(desired).hasSizeGreaterThan(1);
    AggregateReport foreign = kyvernos(desired.get(0));
    List<AggregateReport> observed = new ArrayList<>(desired);
    observed.set(0, foreign);

    assertThat(a.resync(observed).isEmpty()).isTrue();
    a.apply(partial(POD, 20, ResultStatus.PASS, ResultStatus.PASS, ResultStatus.PASS));
    ChangeSet changed = a.flush();

    assertThat(changed.changes()).noneMatch(c -> c.ref().equals(foreign.ref()));
    assertThat(ReportDiff.apply(observed, changed))
        .filteredOn(r -> !r.ref().equals(foreign.ref()))
        .containsExactlyElementsOf(
            a.aggregates().stream().filter(r -> !r.ref().equals(foreign.ref())).toList());
  }
}
