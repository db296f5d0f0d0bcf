package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.testing.ModelGen;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A resync of an aggregator that published some groups and changed others since (it compares the
 * unchanged groups by their published hashes) equals the resync of a fresh aggregator holding the
 * same state, which computes every partition.
 */
class ResyncProperties {

  @Test
  void aResyncAfterPublishingEqualsAResyncFromScratch() {
    Fixtures.theory()
        .forAll(ModelGen.events(20), ModelGen.events(10), ModelGen.seeds())
        .checkAssert(
            (earlier, later, seed) -> {
              AggregatorConfig config = Fixtures.randomConfig(new Random(seed));
              var published = Fixtures.replay(config, earlier);
              List<AggregateReport> observed = published.aggregates();
              published.flush();
              later.forEach(e -> e.applyTo(published));

              var fresh = Fixtures.aggregator(config);
              earlier.forEach(e -> e.applyTo(fresh));
              later.forEach(e -> e.applyTo(fresh));

              ChangeSet incremental = published.resync(observed);
              assertThat(incremental).isEqualTo(fresh.resync(observed));
              assertThat(ReportDiff.apply(observed, incremental)).isEqualTo(published.aggregates());
              // a second resync against the result finds nothing to do, and nothing is dirty
              assertThat(published.resync(ReportDiff.apply(observed, incremental)).isEmpty())
                  .isTrue();
              assertThat(published.flush().isEmpty()).isTrue();
            });
  }

  /**
   * After a flush whose writes met conflicts or vanished objects on some objects (the cluster holds
   * an earlier version of them, or nothing), re-reading only those objects and {@code
   * resyncOnly}-ing them gives exactly the changes of a full resync that concern them, and the
   * cluster then equals the aggregates after the next flush: nothing else needed re-reading.
   */
  @Test
  void aResyncOfSomeObjectsEqualsAFullResyncRestrictedToThem() {
    Fixtures.theory()
        .forAll(ModelGen.events(20), ModelGen.events(10), ModelGen.seeds())
        .checkAssert(
            (earlier, later, seed) -> {
              Random random = new Random(seed);
              AggregatorConfig config = Fixtures.randomConfig(random);
              var full = Fixtures.aggregator(config);
              var only = Fixtures.aggregator(config);
              List<AggregateReport> cluster = new ArrayList<>();
              for (var a : List.of(full, only)) {
                earlier.forEach(e -> e.applyTo(a));
              }
              cluster = ReportDiff.apply(cluster, full.flush());
              only.flush();
              for (var a : List.of(full, only)) {
                later.forEach(e -> e.applyTo(a));
              }
              ChangeSet written = full.flush();
              assertThat(only.flush()).isEqualTo(written);

              // some writes met a conflict (the object is as before) or a vanished object
              Set<ReportRef> conflicted = new LinkedHashSet<>();
              List<Change> succeeded = new ArrayList<>();
              for (Change c : written.changes()) {
                if (random.nextInt(3) == 0) {
                  conflicted.add(c.ref());
                } else {
                  succeeded.add(c);
                }
              }
              List<AggregateReport> before = cluster;
              cluster = ReportDiff.apply(cluster, new ChangeSet(succeeded));
              List<AggregateReport> tampered = new ArrayList<>();
              for (AggregateReport o : cluster) {
                // a conflicted object may have vanished: deleted by another hand
                if (!conflicted.contains(o.ref()) || random.nextBoolean()) {
                  tampered.add(o);
                }
              }
              // and now and then an object that was fine is re-read too
              for (AggregateReport o : before) {
                if (random.nextInt(5) == 0) {
                  conflicted.add(o.ref());
                }
              }
              cluster = tampered;
              List<AggregateReport> reread =
                  cluster.stream().filter(o -> conflicted.contains(o.ref())).toList();

              ChangeSet restricted =
                  new ChangeSet(
                      full.resync(cluster).changes().stream()
                          .filter(c -> conflicted.contains(c.ref()))
                          .toList());
              ChangeSet some = only.resyncOnly(conflicted, reread);
              assertThat(some.changes()).containsExactlyInAnyOrderElementsOf(restricted.changes());

              cluster = ReportDiff.apply(cluster, some);
              cluster = ReportDiff.apply(cluster, only.flush());
              assertThat(cluster).isEqualTo(only.aggregates());
              assertThat(only.resync(cluster).isEmpty()).isTrue();
            });
  }

  @Test
  void aResyncOfSomeObjectsRefusesAnObservedObjectOutsideThem() {
    var a = Fixtures.aggregator(Fixtures.randomConfig(new Random(1)));
    a.apply(new dev.tally.report.api.testing.RandomModel(3).partial());
    List<AggregateReport> all = a.aggregates();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> a.resyncOnly(List.of(), all))
        .isInstanceOf(dev.tally.report.api.InvalidReportException.class)
        .hasMessageStartingWith("observed[0]: ");
  }
}
