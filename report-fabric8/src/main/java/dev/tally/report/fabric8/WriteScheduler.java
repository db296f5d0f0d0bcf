package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportRef;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the aggregator's changes are written: a flush at the end of a window that coalesces the
 * changes of many events into one write per object; after a write met a conflict or a vanished
 * object (409, 404) or failed, a re-read of those objects only (one GET each) and a re-diff of them
 * ({@link ReportAggregator#resyncOnly}), so that a namespace whose aggregates keep conflicting
 * costs a GET per object and never a LIST of everyone's; and a full resync (re-read every owned
 * aggregate and re-diff) after a failed task, or when more than {@link #MAX_REREADS} objects wait
 * to be re-read. Re-reads and resyncs run at once the first time and with backoff after; full
 * resyncs are also at least {@code minResyncInterval} apart, the first of a term aside. The first
 * resync of a term that listed and diffed completes its rebuild.
 *
 * <p>Writes only while this replica leads, is not closed and knows it still holds the Lease (its
 * last renewal began less than the renew deadline ago), checked before each object's write. A flush
 * stopped by the last alone (a pause past the deadline; the Lease may still be this replica's) is
 * made good by a resync, which writes once a renewal succeeded. Confined to the aggregator thread;
 * {@link #rebuilt()} may be read from any.
 */
final class WriteScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(WriteScheduler.class);

  /** More objects to re-read than this make one LIST cheaper than a GET each: a full resync. */
  static final int MAX_REREADS = 100;

  private final AggregatorThread thread;
  private final PartialReportLedger ledger;
  private final ReportWriter writer;
  private final TallyMetrics metrics;
  private final LongSupplier nanoTicker;
  private final RetryPolicy retryPolicy;
  private final Random random;
  private final Duration flushWindow;
  private final BooleanSupplier leading;
  private final BooleanSupplier closed;
  private final Duration minResyncInterval;
  private final BooleanSupplier leaseHeld;
  private final FreshnessTracker freshness;

  private volatile boolean rebuilt;
  private boolean flushScheduled;
  private boolean resyncNeeded;
  private boolean resyncScheduled;
  private boolean rereadScheduled;
  private int resyncAttempts;

  /**
   * When the last full resync of this term that listed began ({@link #nanoTicker}), or null: the
   * next one asked for by trouble waits {@code minResyncInterval} after it. Failed LISTs are paced
   * by the backoff alone, so that a term whose first LIST failed is not held back.
   */
  private @Nullable Long lastResyncStart;

  /** Objects whose write met a conflict, a vanished object or a failure: to re-read and re-diff. */
  private final Set<ReportRef> toReread = new LinkedHashSet<>();

  /**
   * Changes written while others waited to be re-read: handed to {@link
   * PartialReportLedger#written} with the write that completes them.
   */
  private final List<Change> owed = new ArrayList<>();

  WriteScheduler(
      AggregatorThread thread,
      PartialReportLedger ledger,
      ReportWriter writer,
      TallyMetrics metrics,
      LongSupplier nanoTicker,
      RetryPolicy retryPolicy,
      Random random,
      Duration flushWindow,
      BooleanSupplier leading,
      BooleanSupplier closed,
      Duration minResyncInterval,
      BooleanSupplier leaseHeld,
      FreshnessTracker freshness) {
    this.leaseHeld = leaseHeld;
    this.freshness = freshness;
    this.thread = thread;
    this.ledger = ledger;
    this.writer = writer;
    this.metrics = metrics;
    this.nanoTicker = nanoTicker;
    this.retryPolicy = retryPolicy;
    this.random = random;
    this.flushWindow = flushWindow;
    this.leading = leading;
    this.closed = closed;
    this.minResyncInterval = minResyncInterval;
  }

  /** Whether a resync listed and diffed since the term began (see {@link #reset}). */
  boolean rebuilt() {
    return rebuilt;
  }

  /** The term ended: not rebuilt, nothing to resync, and the writer forgets what it published. */
  void reset() {
    rebuilt = false;
    writer.forget();
    resyncNeeded = false;
    resyncAttempts = 0;
    lastResyncStart = null;
    toReread.clear();
    owed.clear();
  }

  /** Whether a flush or a resync is due: what the aggregator was fed is not written yet. */
  boolean writeDue() {
    return flushScheduled || resyncNeeded || !toReread.isEmpty();
  }

  /** The aggregator changed: flush at the end of the window, unless a flush is due already. */
  void scheduleFlush() {
    if (!flushScheduled) {
      flushScheduled = true;
      thread.schedule(this::flush, flushWindow);
    }
  }

  /** Writes what changed since the last flush, or resyncs when one is due. */
  void flush() {
    flushScheduled = false;
    ReportAggregator agg = ledger.aggregator();
    if (agg == null || !leading.getAsBoolean()) {
      return;
    }
    if (resyncNeeded) {
      if (!resyncScheduled) {
        resync();
      }
      return; // the resync that is due writes everything
    }
    if (!toReread.isEmpty()) {
      reread();
      if (!toReread.isEmpty() || resyncNeeded) {
        return; // still in trouble: the next re-read or resync writes the rest
      }
    }
    long start = nanoTicker.getAsLong();
    freshness.cut();
    ChangeSet changes = agg.flush();
    if (changes.isEmpty()) {
      ledger.written(changes); // what was applied is what was published already
      freshness.written(false);
      return;
    }
    WriteOutcome outcome = writer.write(changes, this::mayWrite);
    metrics.flushed(changes.size(), Duration.ofNanos(nanoTicker.getAsLong() - start));
    LOG.debug("flushed {} changes: {}", changes.size(), outcome);
    afterWrite(changes, outcome, false);
  }

  /** Re-reads the owned aggregates and writes the difference. */
  void resync() {
    ReportAggregator agg = ledger.aggregator();
    if (agg == null || !leading.getAsBoolean()) {
      return;
    }
    long started = nanoTicker.getAsLong();
    WriteOutcome outcome;
    ChangeSet changes;
    try {
      List<AggregateReport> observed =
          writer.listOwned(agg.config().format(), agg.config().grouping().layout());
      ledger.observed(observed);
      freshness.cut();
      changes = agg.resync(observed);
      LOG.info("resync against {} owned aggregates: {} changes", observed.size(), changes.size());
      if (LOG.isDebugEnabled()) {
        for (var c : changes.changes()) {
          LOG.debug("resync change: {}", c);
        }
      }
      outcome = writer.write(changes, this::mayWrite);
      // counted once its writes are done, so that a reader of the count sees them in the cluster
      metrics.resynced(changes.size());
    } catch (KubernetesClientException e) {
      LOG.warn("resync failed: {}", RequestFailedException.rootCause(e));
      resyncNeeded = true;
      scheduleResync();
      return;
    }
    resyncNeeded = false;
    lastResyncStart = started;
    // the LIST saw every object: nothing is left to re-read, and what was owed is in the list
    toReread.clear();
    owed.clear();
    // the first resync that listed and diffed completes a rebuild
    rebuilt = mayWrite();
    afterWrite(changes, outcome, true);
  }

  /**
   * Re-reads the objects whose writes met trouble, one GET each, and writes their difference
   * ({@link ReportAggregator#resyncOnly}); nothing else is read.
   */
  private void reread() {
    ReportAggregator agg = ledger.aggregator();
    if (agg == null || !leading.getAsBoolean() || toReread.isEmpty()) {
      return;
    }
    Set<ReportRef> refs = new LinkedHashSet<>(toReread);
    List<AggregateReport> observed;
    try {
      observed = writer.readOwned(refs);
    } catch (KubernetesClientException e) {
      LOG.warn(
          "re-reading {} objects failed: {}", refs.size(), RequestFailedException.rootCause(e));
      scheduleReread();
      return;
    }
    toReread.clear();
    ledger.reread(refs, observed);
    ChangeSet changes = agg.resyncOnly(refs, observed);
    metrics.reread(refs.size(), changes.size());
    LOG.info(
        "re-read {} objects after trouble writing them: {} changes", refs.size(), changes.size());
    WriteOutcome outcome = writer.write(changes, this::mayWrite);
    afterWrite(changes, outcome, false);
  }

  /** A task of the aggregator thread failed: the next resync repairs the state. */
  void taskFailed() {
    resyncNeeded = true;
    if (!closed.getAsBoolean()) {
      scheduleResync();
    }
  }

  private boolean mayWrite() {
    return leading.getAsBoolean() && !closed.getAsBoolean() && leaseHeld.getAsBoolean();
  }

  private void afterWrite(ChangeSet changes, WriteOutcome outcome, boolean wasResync) {
    if (outcome.stopped()) {
      if (leading.getAsBoolean() && !closed.getAsBoolean()) {
        // stopped by an overdue renewal alone: what was not written is written by a resync once
        // the Lease is known to be held again (or the term ends, and the next one rebuilds)
        LOG.warn("stopped writing: the Lease's renewal is overdue; resync once it is renewed");
        resyncNeeded = true;
        scheduleResync();
      }
      return;
    }
    if (!outcome.conflicts().isEmpty() || !outcome.failed().isEmpty()) {
      LOG.info(
          "{} conflicts and {} failed writes: re-read those objects and re-diff them",
          outcome.conflicts().size(),
          outcome.failed().size());
      Set<ReportRef> trouble = new HashSet<>(outcome.conflicts());
      trouble.addAll(outcome.failed());
      for (Change c : changes.changes()) {
        if (!trouble.contains(c.ref())) {
          owed.add(c);
        }
      }
      toReread.addAll(outcome.conflicts());
      toReread.addAll(outcome.failed());
      if (toReread.size() > MAX_REREADS) {
        LOG.info("{} objects to re-read: one full resync instead", toReread.size());
        toReread.clear();
        resyncNeeded = true;
        scheduleResync();
      } else {
        scheduleReread();
      }
    } else if (toReread.isEmpty() && !resyncNeeded) {
      resyncAttempts = 0;
      owed.addAll(changes.changes());
      ledger.written(new ChangeSet(List.copyOf(owed)));
      owed.clear();
      freshness.written(wasResync);
    } else {
      owed.addAll(changes.changes()); // complete only once the trouble is re-read
    }
  }

  /**
   * A full resync after a backoff, and at least {@code minResyncInterval} after the last one that
   * listed began: requests for one meanwhile are one resync.
   */
  private void scheduleResync() {
    if (resyncScheduled) {
      return;
    }
    resyncAttempts++;
    Duration delay = outcomeDelay(resyncAttempts);
    if (lastResyncStart != null) {
      Duration since = Duration.ofNanos(nanoTicker.getAsLong() - lastResyncStart);
      Duration wait = minResyncInterval.minus(since);
      if (wait.compareTo(delay) > 0) {
        delay = wait;
      }
    }
    resyncScheduled = true;
    thread.schedule(
        () -> {
          resyncScheduled = false;
          if (resyncNeeded) {
            resync();
          }
        },
        delay);
  }

  private void scheduleReread() {
    if (rereadScheduled) {
      return;
    }
    rereadScheduled = true;
    resyncAttempts++;
    thread.schedule(
        () -> {
          rereadScheduled = false;
          if (!resyncNeeded && !toReread.isEmpty()) {
            reread();
          }
        },
        outcomeDelay(resyncAttempts));
  }

  private Duration outcomeDelay(int attempt) {
    // a first conflict is re-read at once; repeated trouble backs off
    return attempt <= 1 ? Duration.ZERO : retryPolicy.delay(attempt - 1, Duration.ZERO, random);
  }
}
