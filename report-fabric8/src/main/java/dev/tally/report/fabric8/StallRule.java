package dev.tally.report.fabric8;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * When an {@link AggregatorController} counts as stuck ({@link AggregatorController#stalled()}):
 * its thread stopped after an {@link Error}, a task on it made no progress for longer than the
 * stall bound, or the periodic resync has not run for its period plus that bound. It is the rule a
 * liveness probe answers from, and nothing else.
 */
final class StallRule {
  private final AggregatorThread thread;
  private final Duration stallBound;
  private final Duration resyncPeriod;
  private final LongSupplier nanoTicker;

  /** When the periodic resync last ran (or the controller started). */
  private volatile long periodicRanAt;

  StallRule(
      AggregatorThread thread,
      Duration stallBound,
      Duration resyncPeriod,
      LongSupplier nanoTicker) {
    this.thread = thread;
    this.stallBound = stallBound;
    this.resyncPeriod = resyncPeriod;
    this.nanoTicker = nanoTicker;
    this.periodicRanAt = nanoTicker.getAsLong();
  }

  /** The periodic resync ran now (or the controller started, which begins its first period). */
  void periodicRan() {
    periodicRanAt = nanoTicker.getAsLong();
  }

  /**
   * Why the controller is stuck, or empty; {@code running} while it is started and not closed (only
   * then does the periodic resync count).
   */
  Optional<String> stalled(boolean running) {
    Error fatal = thread.fatal();
    if (fatal != null) {
      return Optional.of("the aggregator thread stopped after " + fatal);
    }
    Duration stuck = thread.stalledFor();
    if (stuck.compareTo(stallBound) > 0) {
      return Optional.of(
          "a task of the aggregator thread has made no progress for "
              + stuck
              + " (the bound is "
              + stallBound
              + ")");
    }
    if (running && !resyncPeriod.isZero()) {
      Duration since = Duration.ofNanos(Math.max(0, nanoTicker.getAsLong() - periodicRanAt));
      if (since.compareTo(resyncPeriod.plus(stallBound)) > 0) {
        return Optional.of(
            "the periodic resync has not run for "
                + since
                + " (its period is "
                + resyncPeriod
                + ", the bound "
                + stallBound
                + " more)");
      }
    }
    return Optional.empty();
  }
}
