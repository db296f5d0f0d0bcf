package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.ReportAggregator;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the aggregator's changes are written: a flush at the end of a window that coalesces the
 * changes of many events into one write per object, and a resync (re-read the owned aggregates and
 * re-diff) after a conflict, a failed write or a failed task, at once the first time and with
 * backoff after. The first resync of a term that listed and diffed completes its rebuild.
 *
 * <p>Writes only while this replica leads and is not closed, checked before each object's write.
 * Confined to the aggregator thread; {@link #rebuilt()} may be read from any.
 */
final class WriteScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(WriteScheduler.class);

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

  private volatile boolean rebuilt;
  private boolean flushScheduled;
  private boolean resyncNeeded;
  private int resyncAttempts;

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
      BooleanSupplier closed) {
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
      resync();
      return;
    }
    long start = nanoTicker.getAsLong();
    ChangeSet changes = agg.flush();
    if (changes.isEmpty()) {
      ledger.written(changes); // what was applied is what was published already
      return;
    }
    WriteOutcome outcome = writer.write(changes, this::mayWrite);
    metrics.flushed(changes.size(), Duration.ofNanos(nanoTicker.getAsLong() - start));
    LOG.debug("flushed {} changes: {}", changes.size(), outcome);
    afterWrite(changes, outcome);
  }

  /** Re-reads the owned aggregates and writes the difference. */
  void resync() {
    ReportAggregator agg = ledger.aggregator();
    if (agg == null || !leading.getAsBoolean()) {
      return;
    }
    WriteOutcome outcome;
    ChangeSet changes;
    try {
      List<AggregateReport> observed =
          writer.listOwned(agg.config().format(), agg.config().grouping().layout());
      ledger.observed(observed);
      changes = agg.resync(observed);
      metrics.resynced(changes.size());
      LOG.info("resync against {} owned aggregates: {} changes", observed.size(), changes.size());
      outcome = writer.write(changes, this::mayWrite);
    } catch (KubernetesClientException e) {
      LOG.warn("resync failed: {}", RequestFailedException.rootCause(e));
      resyncNeeded = true;
      scheduleResync();
      return;
    }
    resyncNeeded = false;
    // the first resync that listed and diffed completes a rebuild
    rebuilt = mayWrite();
    afterWrite(changes, outcome);
  }

  /** A task of the aggregator thread failed: the next resync repairs the state. */
  void taskFailed() {
    resyncNeeded = true;
    if (!closed.getAsBoolean()) {
      scheduleResync();
    }
  }

  private boolean mayWrite() {
    return leading.getAsBoolean() && !closed.getAsBoolean();
  }

  private void afterWrite(ChangeSet changes, WriteOutcome outcome) {
    if (outcome.stopped()) {
      return;
    }
    if (!outcome.conflicts().isEmpty() || !outcome.failed().isEmpty()) {
      LOG.info(
          "{} conflicts and {} failed writes: re-read and re-diff",
          outcome.conflicts().size(),
          outcome.failed().size());
      resyncNeeded = true;
      scheduleResync();
    } else {
      resyncAttempts = 0;
      ledger.written(changes);
    }
  }

  private void scheduleResync() {
    resyncAttempts++;
    Duration delay = outcomeDelay(resyncAttempts);
    thread.schedule(
        () -> {
          if (resyncNeeded) {
            resync();
          }
        },
        delay);
  }

  private Duration outcomeDelay(int attempt) {
    // a first conflict is re-read at once; repeated trouble backs off
    return attempt <= 1 ? Duration.ZERO : retryPolicy.delay(attempt - 1, Duration.ZERO, random);
  }
}
