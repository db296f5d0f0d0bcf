package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.testing.AggregatorEvent;
import dev.tally.report.api.testing.ModelGen;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Two aggregators of different inputs, with the same grouping and format, write into one cluster
 * (docs/DESIGN.md §6.8): whatever both are fed (the same events, so the same groups, and then each
 * its own), however their flushes, resyncs and restarts interleave, no change of one ever names an
 * object the other wrote, and in the end each one's objects are exactly its aggregates.
 */
class InputOwnershipProperties {
  private static final List<String> INPUTS =
      List.of(AggregatorConfig.DEFAULT_INPUT, "trivy", "kyverno", "my-scanner");

  @Test
  void aggregatorsOfDifferentInputsNeverTouchEachOthersAggregates() {
    Fixtures.theory()
        .forAll(ModelGen.events(12), ModelGen.events(12), ModelGen.events(12), ModelGen.seeds())
        .checkAssert(
            (shared, first, second, seed) -> {
              Random random = new Random(seed);
              AggregatorConfig config = Fixtures.randomConfig(random);
              int a = random.nextInt(INPUTS.size());
              int b = (a + 1 + random.nextInt(INPUTS.size() - 1)) % INPUTS.size();
              List<Side> sides =
                  List.of(new Side(config, INPUTS.get(a)), new Side(config, INPUTS.get(b)));
              Cluster cluster = new Cluster();
              for (Side side : sides) {
                shared.forEach(side::feed);
                cluster.write(side, side.aggregator.flush());
              }
              List<List<AggregatorEvent>> later = List.of(first, second);
              int[] next = new int[2];
              while (next[0] < first.size() || next[1] < second.size()) {
                int i =
                    next[0] == first.size() ? 1 : next[1] == second.size() ? 0 : random.nextInt(2);
                Side side = sides.get(i);
                side.feed(later.get(i).get(next[i]++));
                switch (random.nextInt(4)) {
                  case 0 -> cluster.write(side, side.aggregator.flush());
                  case 1 -> cluster.write(side, side.aggregator.resync(cluster.objects()));
                  case 2 -> {
                    side.restart();
                    cluster.write(side, side.aggregator.resync(cluster.objects()));
                  }
                  default -> {}
                }
              }
              for (Side side : sides) {
                cluster.write(side, side.aggregator.flush());
                cluster.write(side, side.aggregator.resync(cluster.objects()));
              }
              for (Side side : sides) {
                assertThat(cluster.of(side)).isEqualTo(side.aggregator.aggregates());
                assertThat(side.aggregator.resync(cluster.objects()).isEmpty()).isTrue();
              }
            });
  }

  /** One aggregator, the events it was fed and the input it aggregates. */
  private static final class Side {
    final AggregatorConfig config;
    final List<AggregatorEvent> fed = new ArrayList<>();
    ReportAggregator aggregator;

    Side(AggregatorConfig base, String input) {
      this.config =
          new AggregatorConfig(
              base.grouping(),
              base.format(),
              base.limits(),
              base.caps(),
              base.tombstoneRetentionSeconds(),
              input);
      this.aggregator = Fixtures.aggregator(config);
    }

    void feed(AggregatorEvent e) {
      fed.add(e);
      e.applyTo(aggregator);
    }

    /** A fresh aggregator fed the same events, as after a restart, before its first resync. */
    void restart() {
      aggregator = Fixtures.replay(config, fed);
    }

    @Override
    public String toString() {
      return config.input();
    }
  }

  /** What the cluster holds, and which side wrote each object. */
  private static final class Cluster {
    final Map<ReportRef, AggregateReport> objects = new HashMap<>();
    final Map<ReportRef, Side> writer = new HashMap<>();

    List<AggregateReport> objects() {
      return ReportDiff.apply(objects.values(), ChangeSet.EMPTY);
    }

    /** {@code side}'s objects, in {@link ReportRef} order. */
    List<AggregateReport> of(Side side) {
      return objects().stream().filter(o -> writer.get(o.ref()) == side).toList();
    }

    /** Applies {@code side}'s changes, none of which may name an object of the other side. */
    void write(Side side, ChangeSet changes) {
      for (Change c : changes.changes()) {
        Side had = writer.get(c.ref());
        assertThat(had == null || had == side)
            .as("%s's %s names %s's object", side, c, had)
            .isTrue();
        if (c instanceof Change.Delete) {
          objects.remove(c.ref());
          writer.remove(c.ref());
        } else {
          AggregateReport report =
              c instanceof Change.Create create ? create.report() : ((Change.Update) c).report();
          objects.put(c.ref(), report);
          writer.put(c.ref(), side);
        }
      }
    }
  }
}
