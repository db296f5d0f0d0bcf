package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.testing.ModelGen;
import java.util.List;
import java.util.Random;
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
}
