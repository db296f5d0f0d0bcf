package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportRef;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.internal.LogFields;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the aggregator's changes are written: a flush at the end of a window that coalesces the
 * changes of many events into one write per object, and a full resync (re-read every owned
 * aggregate and re-diff) after a failed task, at least {@code minResyncInterval} apart (the first
 * of a term aside), with backoff while the LIST fails. The first resync of a term that listed and
 * diffed completes its rebuild.
 *
 * <p>A write the API server does not take is that object's problem alone (DESIGN, "Bulkheads"):
 *
 * <ul>
 *   <li>a conflict or a vanished object (409, 404), or a refusal that may heal (403, a namespace
 *       being deleted, 429 and 5xx past their retries, no answer), puts the object in trouble: its
 *       changes are held back, and when its own backoff ends it is re-read (one GET) and re-diffed
 *       ({@link ReportAggregator#resyncOnly}); a conflict is re-read at once the first time. More
 *       than {@link #MAX_REREADS} objects due at once make one LIST cheaper than a GET each: a full
 *       resync instead;
 *   <li>a refusal of the content itself (400, 413, 422) parks the object: a Warning Event and a
 *       metric say so once, and the same content is never sent again; a change of its content (or
 *       its delete) is tried once more;
 *   <li>every other object of the same flush is written, and the input's lifecycle completes for
 *       every namespace with no object in trouble ({@link InputLedger#written}); a parked object
 *       does not hold its namespace back, since no retry would change it.
 * </ul>
 *
 * <p>Writes only while this replica leads, is not closed and knows it still holds the Lease (its
 * last renewal began less than the renew deadline ago), checked before each object's write. A flush
 * stopped by the last alone (a pause past the deadline; the Lease may still be this replica's) is
 * made good by a resync, which writes once a renewal succeeded. Confined to the aggregator thread;
 * {@link #rebuilt()} may be read from any.
 */
final class WriteScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(WriteScheduler.class);

  /** More objects due to be re-read than this make one LIST cheaper than a GET each. */
  static final int MAX_REREADS = 100;

  private final AggregatorThread thread;
  private final InputLedger ledger;
  private final ReportWriter writer;
  private final RejectionEvents events;
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
  private int resyncAttempts;

  /**
   * When the last full resync of this term that listed began ({@link #nanoTicker}), or null: the
   * next one asked for by trouble waits {@code minResyncInterval} after it. Failed LISTs are paced
   * by the backoff alone, so that a term whose first LIST failed is not held back.
   */
  private @Nullable Long lastResyncStart;

  /**
   * One object whose write met trouble: how often in a row, when it is re-read next, and whether
   * its trouble was logged at WARN (once per object).
   */
  private static final class Trouble {
    int attempts;
    long due;
    boolean warned;
  }

  /** Objects whose write met trouble, each re-read and re-diffed when its own backoff ends. */
  private final Map<ReportRef, Trouble> trouble = new LinkedHashMap<>();

  /** Objects whose content the server refused for good, with the hash of that content. */
  private final Map<ReportRef, String> parked = new HashMap<>();

  /** When the re-read task scheduled last runs ({@link #nanoTicker}), or null if none is. */
  private @Nullable Long rereadAt;

  /**
   * The generation of the re-read task that counts: an earlier task (replaced by one that runs
   * sooner, or of an ended term) finds its generation past and does nothing, so tasks never pile
   * up.
   */
  private long rereadGeneration;

  /**
   * Changes written by re-reads since the last flush or resync: handed to the input's lifecycle
   * with the next of those, which takes what the aggregator applied meanwhile ({@link
   * ReportAggregator#flush}). A re-read alone does not, so an input object applied but not flushed
   * yet is never retired on its strength.
   */
  private final List<Change> owed = new ArrayList<>();

  WriteScheduler(
      AggregatorThread thread,
      InputLedger ledger,
      ReportWriter writer,
      RejectionEvents events,
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
    this.events = events;
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
    trouble.clear();
    parked.clear();
    owed.clear();
    rereadAt = null;
    rereadGeneration++;
    metrics.writesInTrouble(0);
  }

  /** Whether a flush or a resync is due: what the aggregator was fed is not written yet. */
  boolean writeDue() {
    return flushScheduled || resyncNeeded;
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
    long start = nanoTicker.getAsLong();
    freshness.cut();
    ChangeSet changes = agg.flush();
    if (changes.isEmpty()) {
      settle(changes, Round.FLUSH); // what was applied is what was published already
      return;
    }
    WriteOutcome outcome = write(changes, Set.of());
    metrics.flushed(changes.size(), Duration.ofNanos(nanoTicker.getAsLong() - start));
    LOG.debug("flushed {} changes: {}", changes.size(), outcome);
    afterWrite(changes, outcome, Round.FLUSH);
  }

  /**
   * Re-reads the owned aggregates and writes the difference, the objects in trouble whose backoff
   * ended included (the LIST reads them as well as a GET each would); the others stay held back.
   */
  void resync() {
    ReportAggregator agg = ledger.aggregator();
    if (agg == null || !leading.getAsBoolean()) {
      return;
    }
    long started = nanoTicker.getAsLong();
    Set<ReportRef> due = due(started);
    WriteOutcome outcome;
    ChangeSet changes;
    try {
      List<AggregateReport> observed =
          writer.listOwned(agg.config().format(), agg.config().grouping().layout());
      ledger.observed(observed);
      owed.clear(); // the LIST saw what the re-reads wrote
      freshness.cut();
      changes = agg.resync(observed);
      LOG.info("resync against {} owned aggregates: {} changes", observed.size(), changes.size());
      if (LOG.isDebugEnabled()) {
        for (var c : changes.changes()) {
          LOG.debug("resync change: {}", c);
        }
      }
      outcome = write(changes, due);
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
    // the first resync that listed and diffed completes a rebuild
    rebuilt = mayWrite();
    recoveredUnlessTroubled(due, outcome);
    // a parked object neither desired nor there any more has no change left: forget it
    Set<ReportRef> changed = new HashSet<>();
    for (Change c : changes.changes()) {
      changed.add(c.ref());
    }
    parked.keySet().retainAll(changed);
    afterWrite(changes, outcome, Round.RESYNC);
  }

  /**
   * Writes {@code changes} but those of objects in trouble that are not {@code due} (their own
   * re-read writes them) and those of parked objects whose content is still the refused one.
   */
  private WriteOutcome write(ChangeSet changes, Set<ReportRef> due) {
    List<Change> toWrite = new ArrayList<>(changes.size());
    for (Change c : changes.changes()) {
      ReportRef ref = c.ref();
      if (trouble.containsKey(ref) && !due.contains(ref)) {
        continue;
      }
      String refused = parked.get(ref);
      if (refused != null) {
        if (!(c instanceof Change.Delete) && refused.equals(contentHash(c))) {
          continue; // the server refused this very content: sending it again cannot succeed
        }
        parked.remove(ref); // new content, or gone: one more try
      }
      toWrite.add(c);
    }
    return toWrite.isEmpty()
        ? WriteOutcome.NOTHING
        : writer.write(new ChangeSet(List.copyOf(toWrite)), this::mayWrite);
  }

  /**
   * Re-reads the objects in trouble whose backoff ended, one GET each, and writes their difference
   * ({@link ReportAggregator#resyncOnly}); nothing else is read. An object whose GET fails stays in
   * trouble, with a longer backoff, and holds back no other.
   */
  private void reread(long generation) {
    if (generation != rereadGeneration) {
      return; // replaced by a task that runs sooner, or of an ended term
    }
    rereadAt = null;
    ReportAggregator agg = ledger.aggregator();
    if (agg == null || !leading.getAsBoolean() || resyncNeeded) {
      return; // a resync that is due reads them all
    }
    long now = nanoTicker.getAsLong();
    Set<ReportRef> due = due(now);
    if (due.size() > MAX_REREADS) {
      LOG.info("{} objects to re-read: one full resync instead", due.size());
      resyncNeeded = true;
      scheduleResync(); // paced like every resync asked for by trouble
      return;
    }
    Set<ReportRef> read = new LinkedHashSet<>();
    List<AggregateReport> observed = new ArrayList<>();
    for (ReportRef ref : due) {
      try {
        observed.addAll(writer.readOwned(List.of(ref)));
        read.add(ref);
      } catch (KubernetesClientException e) {
        troubled(ref, now); // it waits longer
        warnOnce(ref, "re-reading it failed: " + RequestFailedException.rootCause(e));
      }
    }
    if (!read.isEmpty()) {
      ledger.reread(read, observed);
      ChangeSet changes = agg.resyncOnly(read, observed);
      metrics.reread(read.size(), changes.size());
      LOG.debug("re-read {} objects after trouble writing them: {} changes", read.size(), changes);
      WriteOutcome outcome = write(changes, read);
      recoveredUnlessTroubled(read, outcome);
      afterWrite(changes, outcome, Round.REREAD);
    }
    scheduleReread();
  }

  /** The objects in trouble whose backoff has ended at {@code now}. */
  private Set<ReportRef> due(long now) {
    Set<ReportRef> due = new LinkedHashSet<>();
    for (var e : trouble.entrySet()) {
      if (now - e.getValue().due >= 0) {
        due.add(e.getKey());
      }
    }
    return due;
  }

  /** What a round of writes was, for what follows it. */
  private enum Round {
    /** A flush: took what the aggregator applied since the last one. */
    FLUSH,
    /** A full resync: took everything the aggregator desires. */
    RESYNC,
    /** A re-read of objects in trouble: took nothing else. */
    REREAD
  }

  /**
   * The objects of {@code retried} were read again and written as {@code outcome} says: each that
   * met no new trouble is settled (written, needing no write, or parked).
   */
  private void recoveredUnlessTroubled(Set<ReportRef> retried, WriteOutcome outcome) {
    if (retried.isEmpty() || outcome.stopped()) {
      return;
    }
    Set<ReportRef> again = new HashSet<>(outcome.conflicts());
    for (WriteFailure f : outcome.failed()) {
      again.add(f.ref());
    }
    for (ReportRef ref : retried) {
      if (!again.contains(ref)) {
        Trouble t = trouble.remove(ref);
        if (t != null && t.attempts > 1) {
          LogFields.about(LOG.atInfo(), ref).log("written again after {} attempts", t.attempts);
        }
      }
    }
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

  private void afterWrite(ChangeSet changes, WriteOutcome outcome, Round round) {
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
    long now = nanoTicker.getAsLong();
    for (WriteFailure f : outcome.parked()) {
      park(f, changes, now);
    }
    for (ReportRef ref : outcome.conflicts()) {
      if (troubled(ref, now) == 1) {
        LOG.debug("writing {} met a conflict: re-read it and re-diff it", ref);
      }
    }
    for (WriteFailure f : outcome.failed()) {
      troubled(f.ref(), now);
      warnOnce(f.ref(), "writing it failed with " + f.code() + ": " + f.reason());
    }
    settle(changes, round);
    scheduleReread();
  }

  /** The first trouble of {@code ref} is logged at WARN, the rest at DEBUG. */
  private void warnOnce(ReportRef ref, String what) {
    Trouble t = trouble.get(ref);
    if (t != null && !t.warned) {
      t.warned = true;
      LogFields.about(LOG.atWarn(), ref).log("{}; it is retried alone, with backoff", what);
    } else {
      LogFields.about(LOG.atDebug(), ref).log("{} (attempt {})", what, t == null ? 0 : t.attempts);
    }
  }

  /**
   * A round of writes is done. After a flush or a resync, the input's lifecycle completes for every
   * namespace with no object in trouble, given the changes written (or left as they are: parked,
   * refused as not Tally's, held back) by it and by the re-reads before it; a re-read's are owed to
   * the next flush, which takes what was applied meanwhile. Nothing is settled while a resync is
   * due: it settles everything. Freshness counts the objects in trouble out (one object the server
   * keeps refusing does not make every input stale); {@code tally.writes.in.trouble} counts them.
   */
  private void settle(ChangeSet changes, Round round) {
    metrics.writesInTrouble(trouble.size());
    if (resyncNeeded) {
      return;
    }
    if (round == Round.RESYNC || trouble.isEmpty()) {
      resyncAttempts = 0;
    }
    for (Change c : changes.changes()) {
      if (!trouble.containsKey(c.ref()) && !parked.containsKey(c.ref())) {
        owed.add(c);
      }
    }
    if (round == Round.REREAD) {
      scheduleFlush(); // settles what the re-read wrote, with what was applied meanwhile
      return;
    }
    Set<String> unsettled = new HashSet<>();
    for (ReportRef ref : trouble.keySet()) {
      unsettled.add(ref.namespace());
    }
    ledger.written(new ChangeSet(List.copyOf(owed)), unsettled);
    owed.clear();
    freshness.written(round == Round.RESYNC);
  }

  /**
   * {@code f} refused the content of its object for good: parked, with one Warning Event (within
   * its namespace's share) and a count, until its content changes.
   */
  private void park(WriteFailure f, ChangeSet changes, long now) {
    for (Change c : changes.changes()) {
      if (c.ref().equals(f.ref()) && !(c instanceof Change.Delete)) {
        trouble.remove(f.ref());
        parked.put(f.ref(), contentHash(c));
        metrics.writeRefused(f.ref(), f.code());
        events.writeRefused(f, report(c));
        return;
      }
    }
    // a delete refused (an admission webhook, say): there is no content to park, and an object
    // left behind must not be forgotten; it is retried alone, with backoff
    troubled(f.ref(), now);
    warnOnce(f.ref(), "deleting it was refused with " + f.code() + ": " + f.reason());
  }

  /** {@code ref} is in trouble once more; how many times in a row. */
  private int troubled(ReportRef ref, long now) {
    Trouble t = trouble.computeIfAbsent(ref, r -> new Trouble());
    t.attempts++;
    t.due = now + outcomeDelay(t.attempts).toNanos();
    return t.attempts;
  }

  /** Schedules the re-read of the objects in trouble at the earliest end of their backoffs. */
  private void scheduleReread() {
    if (trouble.isEmpty()) {
      return;
    }
    long earliest = Long.MAX_VALUE;
    for (Trouble t : trouble.values()) {
      earliest = earliest == Long.MAX_VALUE || t.due - earliest < 0 ? t.due : earliest;
    }
    if (rereadAt != null && rereadAt - earliest <= 0) {
      return; // one is scheduled already, no later than this
    }
    rereadAt = earliest;
    long generation = ++rereadGeneration;
    long now = nanoTicker.getAsLong();
    thread.schedule(() -> reread(generation), Duration.ofNanos(Math.max(0, earliest - now)));
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

  private Duration outcomeDelay(int attempt) {
    // a first conflict is re-read at once; repeated trouble backs off
    return attempt <= 1 ? Duration.ZERO : retryPolicy.delay(attempt - 1, Duration.ZERO, random);
  }

  private static AggregateReport report(Change c) {
    return c instanceof Change.Create create ? create.report() : ((Change.Update) c).report();
  }

  private static String contentHash(Change c) {
    return report(c).contentHash();
  }
}
