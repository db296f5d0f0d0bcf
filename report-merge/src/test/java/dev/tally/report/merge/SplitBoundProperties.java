package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.testing.AggregatorEvent;
import dev.tally.report.api.testing.ModelGen;
import dev.tally.report.api.testing.RandomModel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The bound on what one added or removed result costs, as README.md and docs/DESIGN.md state it
 * ("Stable splitting"), checked through the public API only: {@code ReportAggregator.builder()},
 * {@code apply} and the {@code ChangeSet} of {@code flush}.
 *
 * <p>After any state has been flushed, one later evaluation of one register that adds or removes
 * one result makes a flush in which
 *
 * <ul>
 *   <li>one side is a single partition: either one old partition is replaced by new ones that hold
 *       exactly its results plus the added one, or old ones are replaced by one new partition that
 *       holds exactly their results minus the removed one (a partition that keeps its name is on
 *       both sides, as an Update);
 *   <li>when only {@code maxResults} splits (any {@code maxResults} results fit {@code maxBytes}),
 *       the other side has at most two partitions, so the ChangeSet has at most <b>three</b>
 *       changes: a leaf that splits away from its name is one Delete and two Creates, two leaves
 *       that merge into a new name are one Create and two Deletes. Two, the old claim, is not a
 *       bound: {@link #threeWritesHappen()} finds both cases;
 *   <li>when {@code maxBytes} splits, the other side has at most one more partition than the single
 *       one holds results;
 *   <li>every partition not in the ChangeSet keeps its content.
 * </ul>
 */
class SplitBoundProperties {
  private static final List<Grouping> GROUPINGS =
      List.of(
          Grouping.perNamespace(),
          Grouping.perNamespaceAndPolicy(),
          Grouping.perSubject(),
          Grouping.custom("one", (subject, key) -> "all"));

  /** The pool of subjects of {@link ModelGen#events}, so the changed register meets others. */
  private static final int SUBJECTS = 6;

  @Test
  void underMaxResultsOneAddedOrRemovedResultTakesAtMostThreeWrites() {
    Fixtures.theory()
        .forAll(ModelGen.events(40), ModelGen.seeds())
        .checkAssert(
            (events, seed) -> {
              Step step = Step.take(events, new Random(seed), false);
              step.checkOneSideIsOnePartition();
              assertThat(step.oldSide()).as("old partitions changed or deleted").hasSizeLessThan(3);
              assertThat(step.newSide()).as("new partitions created or changed").hasSizeLessThan(3);
              assertThat(step.changes.size()).as("writes of %s", step).isLessThanOrEqualTo(3);
            });
  }

  @Test
  void underMaxBytesTheOtherSideHasAtMostOneMorePartitionThanTheOneHoldsResults() {
    Fixtures.theory()
        .forAll(ModelGen.events(20), ModelGen.seeds())
        .checkAssert(
            (events, seed) -> {
              Step step = Step.take(events, new Random(seed), true);
              step.checkOneSideIsOnePartition();
              List<ReportRef> oldSide = step.oldSide();
              List<ReportRef> newSide = step.newSide();
              boolean oneIsOld = oldSide.size() <= 1;
              List<ReportRef> one = oneIsOld ? oldSide : newSide;
              List<ReportRef> many = oneIsOld ? newSide : oldSide;
              int held =
                  one.isEmpty() ? 0 : (oneIsOld ? step.before : step.after).get(one.get(0)).size();
              assertThat(many.size()).as("%s", step).isLessThanOrEqualTo(held + 1);
              assertThat(step.changes.size()).isLessThanOrEqualTo(held + 2);
            });
  }

  /**
   * The bound of three is reached, in both directions: with two as the bound (what the README once
   * said) the property above fails on these.
   */
  @Test
  void threeWritesHappen() {
    boolean splitAway = false;
    boolean mergedAway = false;
    Random seeds = new Random(Fixtures.SEED);
    for (int i = 0; i < 20_000 && !(splitAway && mergedAway); i++) {
      long seed = seeds.nextLong();
      RandomModel m = new RandomModel(seed);
      Step step = Step.take(m.events(1 + m.random().nextInt(40)), m.random(), false);
      ChangeSet c = step.changes;
      if (c.size() == 3) {
        splitAway |= c.deletes().size() == 1 && c.creates().size() == 2;
        mergedAway |= c.creates().size() == 1 && c.deletes().size() == 2;
      }
    }
    assertThat(splitAway).as("a leaf split away from its name: 1 delete, 2 creates").isTrue();
    assertThat(mergedAway).as("two leaves merged into a new name: 1 create, 2 deletes").isTrue();
  }

  /** One flushed state, one more or one fewer result in one register, and the flush after it. */
  private static final class Step {
    final Map<ReportRef, List<Result>> before;
    final Map<ReportRef, List<Result>> after = new HashMap<>();
    final ChangeSet changes;
    final Result changed;
    final boolean added;
    final String config;

    private Step(
        Map<ReportRef, List<Result>> before,
        ReportAggregator aggregator,
        ChangeSet changes,
        Result changed,
        boolean added,
        String config) {
      this.before = before;
      this.changes = changes;
      this.changed = changed;
      this.added = added;
      this.config = config;
      for (AggregateReport report : aggregator.aggregates()) {
        after.put(report.ref(), report.results());
      }
    }

    /**
     * Replays {@code events}, then sets one register (a random subject and key) to a random number
     * of results, flushes, and adds or removes one of its results by a later evaluation.
     */
    static Step take(List<AggregatorEvent> events, Random r, boolean bytesBind) {
      Grouping grouping = GROUPINGS.get(r.nextInt(GROUPINGS.size()));
      ReportFormat format = r.nextBoolean() ? ReportFormat.WGPOLICY : ReportFormat.OPENREPORTS;
      // results of the model are under 1 KiB: 8 of them never come near the default 1 MiB; with
      // messages of 4 to 16 KiB, 64 KiB holds a handful and 1000 results never bind
      ReportLimits limits =
          bytesBind
              ? ReportLimits.defaults().withMaxBytes(ReportLimits.MIN_MAX_BYTES)
              : ReportLimits.defaults().withMaxResults(1 + r.nextInt(8));
      ReportAggregator aggregator =
          ReportAggregator.builder().grouping(grouping).format(format).limits(limits).build();
      events.forEach(e -> e.applyTo(aggregator));

      RandomModel m = new RandomModel(r, SUBJECTS);
      Subject subject = RandomModel.subject(r.nextInt(SUBJECTS));
      CoverageKey key = m.key();
      int size = r.nextInt(bytesBind ? 24 : 3 * limits.maxResults() + 2);
      List<Result> register = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        register.add(result(m, subject, key, "r" + i, bytesBind));
      }
      aggregator.apply(evaluation(subject, key, register, 100));
      aggregator.flush();
      Map<ReportRef, List<Result>> before = new HashMap<>();
      for (AggregateReport report : aggregator.aggregates()) {
        before.put(report.ref(), report.results());
      }

      boolean add = register.isEmpty() || r.nextBoolean();
      Result changed =
          add
              ? result(m, subject, key, "added", bytesBind)
              : register.remove(r.nextInt(register.size()));
      if (add) {
        register.add(changed);
      }
      aggregator.apply(evaluation(subject, key, register, 200));
      ChangeSet changes = aggregator.flush();
      // as the aggregator holds it: about the subject when it names no object
      Result held =
          changed.resources().isEmpty() && changed.resourceSelector().isEmpty()
              ? changed.toBuilder().resources(List.of(subject)).build()
              : changed;
      return new Step(
          before,
          aggregator,
          changes,
          held,
          add,
          grouping + " " + format + " " + limits + ", register of " + size);
    }

    private static Result result(
        RandomModel m, Subject subject, CoverageKey key, String rule, boolean big) {
      Result.Builder b = m.result(subject, key).toBuilder().rule(rule);
      if (big) {
        b.message("m".repeat(4096 + m.random().nextInt(12 * 1024)));
      }
      return b.build();
    }

    private static PartialReport evaluation(
        Subject subject, CoverageKey key, List<Result> results, long seconds) {
      return PartialReport.builder()
          .producer("split-bound")
          .subject(subject)
          .coverage(Set.of(key))
          .results(List.copyOf(results))
          .observedAt(Timestamp.ofSeconds(seconds))
          .build();
    }

    /** Partitions whose content left: updated or deleted. */
    List<ReportRef> oldSide() {
      List<ReportRef> out = new ArrayList<>();
      for (Change c : changes.changes()) {
        if (!(c instanceof Change.Create)) {
          out.add(c.ref());
        }
      }
      return out;
    }

    /** Partitions whose content is new: created or updated. */
    List<ReportRef> newSide() {
      List<ReportRef> out = new ArrayList<>();
      for (Change c : changes.changes()) {
        if (!(c instanceof Change.Delete)) {
          out.add(c.ref());
        }
      }
      return out;
    }

    void checkOneSideIsOnePartition() {
      assertThat(Math.min(oldSide().size(), newSide().size()))
          .as("one side is a single partition: %s", this)
          .isLessThanOrEqualTo(1);
      // the content moved is exactly the old side's results plus or minus the changed result
      Map<Result, Integer> moved = new HashMap<>();
      for (ReportRef ref : newSide()) {
        after.get(ref).forEach(x -> moved.merge(x, 1, Integer::sum));
      }
      for (ReportRef ref : oldSide()) {
        before.get(ref).forEach(x -> moved.merge(x, -1, Integer::sum));
      }
      moved.values().removeIf(n -> n == 0);
      assertThat(moved).as("%s", this).isEqualTo(Map.of(changed, added ? 1 : -1));
      // and nothing else changed
      for (var e : before.entrySet()) {
        if (!oldSide().contains(e.getKey())) {
          assertThat(after.get(e.getKey())).as("%s untouched", e.getKey()).isEqualTo(e.getValue());
        }
      }
      for (ReportRef ref : after.keySet()) {
        assertThat(before.containsKey(ref) || newSide().contains(ref))
            .as("%s appeared without a Create", ref)
            .isTrue();
      }
    }

    @Override
    public String toString() {
      return (added ? "added " : "removed ")
          + changed
          + " under "
          + config
          + ": "
          + changes.changes().stream()
              .map(c -> c.getClass().getSimpleName() + " " + c.ref().name())
              .toList();
    }
  }
}
