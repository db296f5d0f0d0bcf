package dev.tally.report.merge;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.testing.AggregatorEvent;
import dev.tally.report.api.testing.ModelGen;
import java.util.List;
import java.util.Random;
import org.quicktheories.QuickTheory;

/**
 * Configurations and helpers shared by the merge tests; {@link #theory} by those of its subpackages
 * too.
 */
public final class Fixtures {
  /** Seed of every property test: CI is deterministic; change it locally to explore. */
  public static final long SEED = Long.getLong("tally.seed", 0x7a11_5eedL);

  public static final int EXAMPLES = Integer.getInteger("tally.examples", 1000);

  static final List<Grouping> GROUPINGS =
      List.of(Grouping.perNamespace(), Grouping.perSubject(), Grouping.perNamespaceAndPolicy());

  private Fixtures() {}

  /** Every property of this module: {@link #EXAMPLES} examples from the fixed {@link #SEED}. */
  public static QuickTheory theory() {
    return QuickTheory.qt().withFixedSeed(SEED).withExamples(EXAMPLES);
  }

  static AggregatorConfig config(Grouping grouping, ReportFormat format, int maxResults) {
    return new AggregatorConfig(
        grouping,
        format,
        ReportLimits.defaults().withMaxResults(maxResults),
        InputCaps.defaults(),
        3600);
  }

  /** A property over event streams, each with its own random source and configuration. */
  interface StreamCheck {
    void check(List<AggregatorEvent> events, Random random, AggregatorConfig config);
  }

  /**
   * Checks {@code check} on streams of 1 to {@code maxEvents} events; the configuration is drawn
   * first from the stream's random source, which the check may go on drawing from.
   */
  static void forEachStream(int maxEvents, StreamCheck check) {
    theory()
        .forAll(ModelGen.events(maxEvents), ModelGen.seeds())
        .checkAssert(
            (events, seed) -> {
              Random r = new Random(seed);
              check.check(events, r, randomConfig(r));
            });
  }

  /** A configuration chosen by the random source: grouping, format and a small maxResults. */
  static AggregatorConfig randomConfig(Random r) {
    return config(
        GROUPINGS.get(r.nextInt(GROUPINGS.size())),
        r.nextBoolean() ? ReportFormat.WGPOLICY : ReportFormat.OPENREPORTS,
        1 + r.nextInt(6));
  }

  static DefaultReportAggregator aggregator(AggregatorConfig config) {
    return new DefaultReportAggregator(config);
  }

  static DefaultReportAggregator replay(AggregatorConfig config, List<AggregatorEvent> events) {
    var a = aggregator(config);
    events.forEach(e -> e.applyTo(a));
    return a;
  }

  static ReportState fold(List<AggregatorEvent> events) {
    ReportState s = ReportState.empty();
    for (AggregatorEvent e : events) {
      if (e instanceof AggregatorEvent.Apply apply) {
        s = s.apply(apply.partial());
      } else if (e instanceof AggregatorEvent.Delete delete) {
        s = s.delete(delete.namespace(), delete.uid(), delete.deletedAt());
      }
    }
    return s;
  }

  static List<AggregateReport> published(ReportAggregator a, List<AggregateReport> cluster) {
    return ReportDiff.apply(cluster, a.flush());
  }
}
