package dev.tally.report.fabric8.metrics;

import java.time.Duration;
import java.util.Objects;

/**
 * How fresh a controller's aggregates are, as of the moment it was read ({@link
 * dev.tally.report.fabric8.AggregatorController#freshness()}, and {@link TallyMetrics#freshness}
 * for gauges). All three are zero on a replica that does not lead: it owes nothing.
 *
 * @param oldestUnmergedInput how long the oldest input event (an add, change or removal of a
 *     partial report or intermediate report, as the informers delivered it) has waited without its
 *     effect being in the cluster: queued for the aggregator thread, applied but not yet flushed,
 *     or flushed into writes that did not all succeed. Zero when nothing waits. An event that
 *     changes nothing stops waiting once applied. This is what a frozen thread, a failing writer or
 *     a flood shows as.
 * @param sinceLastFlush how long since the last flush or resync whose writes all succeeded (or that
 *     had nothing to write), or since the term began: grows in a quiet cluster, where nothing needs
 *     flushing
 * @param sinceLastResync how long since the last resync (the rebuild, the periodic one, one after a
 *     conflict) that listed, diffed and wrote its difference, or since the term began
 */
public record Freshness(
    Duration oldestUnmergedInput, Duration sinceLastFlush, Duration sinceLastResync) {
  /** A replica that does not lead. */
  public static final Freshness NOT_LEADING =
      new Freshness(Duration.ZERO, Duration.ZERO, Duration.ZERO);

  public Freshness {
    Objects.requireNonNull(oldestUnmergedInput, "oldestUnmergedInput");
    Objects.requireNonNull(sinceLastFlush, "sinceLastFlush");
    Objects.requireNonNull(sinceLastResync, "sinceLastResync");
  }
}
