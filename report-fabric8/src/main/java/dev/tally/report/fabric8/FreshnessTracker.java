package dev.tally.report.fabric8;

import dev.tally.report.fabric8.metrics.Freshness;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Measures {@link Freshness} on the controller's ticker. The feed hands the informers' events to
 * the aggregator thread in tasks ({@link InputFeed}: one waits at a time, and a task that leaves
 * objects behind submits the next); each task is stamped when submitted ({@link #input}), and a
 * task that the aggregator thread submits while running one carries the running one's stamp, so the
 * objects it left behind keep their age. The stamps of queued tasks wait in submission order, which
 * is the order the thread runs them in. Once a task ran, if a write is due its stamp joins the
 * applied ones; a flush or resync takes those in flight when it begins ({@link #cut}), and they are
 * merged when its writes all succeed ({@link #written}).
 *
 * <p>{@link #input} runs on informer threads and the aggregator thread, {@link #freshness} on any;
 * the rest on the aggregator thread.
 */
final class FreshnessTracker {
  private static final long NONE = Long.MAX_VALUE;

  private final LongSupplier nanoTicker;
  private final Queue<Long> queued = new ConcurrentLinkedQueue<>();

  /** On the aggregator thread, the stamp of the task running now; NONE elsewhere. */
  private final ThreadLocal<Long> running = ThreadLocal.withInitial(() -> NONE);

  private volatile boolean leading;
  private volatile long appliedSince = NONE;
  private volatile long inFlightSince = NONE;
  private volatile long lastFlush;
  private volatile long lastResync;

  FreshnessTracker(LongSupplier nanoTicker) {
    this.nanoTicker = nanoTicker;
  }

  /**
   * Input events are handed over: {@code apply} is the task that applies them, wrapped so that its
   * stamp moves on when it runs; {@code writeDue} says, after it ran, whether a write is due (else
   * they changed nothing to write).
   */
  Runnable input(Runnable apply, BooleanSupplier writeDue) {
    long inherited = running.get();
    queued.add(inherited != NONE ? inherited : nanoTicker.getAsLong());
    return () -> {
      Long stamp = queued.poll();
      running.set(stamp == null ? NONE : stamp);
      try {
        apply.run();
      } finally {
        running.set(NONE);
        if (stamp != null && leading && writeDue.getAsBoolean()) {
          appliedSince = Math.min(appliedSince, stamp);
        }
      }
    };
  }

  /** A term begins (or ends): nothing is owed from before it. */
  void term(boolean nowLeading) {
    long now = nanoTicker.getAsLong();
    appliedSince = NONE;
    inFlightSince = NONE;
    lastFlush = now;
    lastResync = now;
    leading = nowLeading;
  }

  /** A flush or resync takes what was applied so far. */
  void cut() {
    inFlightSince = Math.min(inFlightSince, appliedSince);
    appliedSince = NONE;
  }

  /** The writes of the flush or resync since the last {@link #cut} all succeeded. */
  void written(boolean resync) {
    long now = nanoTicker.getAsLong();
    inFlightSince = NONE;
    lastFlush = now;
    if (resync) {
      lastResync = now;
    }
  }

  Freshness freshness() {
    if (!leading) {
      return Freshness.NOT_LEADING;
    }
    long now = nanoTicker.getAsLong();
    Long head = queued.peek();
    long oldest = Math.min(head == null ? NONE : head, Math.min(appliedSince, inFlightSince));
    return new Freshness(
        oldest == NONE ? Duration.ZERO : age(now, oldest),
        age(now, lastFlush),
        age(now, lastResync));
  }

  private static Duration age(long now, long since) {
    return Duration.ofNanos(Math.max(0, now - since));
  }
}
