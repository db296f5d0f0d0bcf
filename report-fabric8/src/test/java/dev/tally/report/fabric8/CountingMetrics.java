package dev.tally.report.fabric8;

import dev.tally.report.api.ReportRef;
import dev.tally.report.fabric8.metrics.Freshness;
import dev.tally.report.fabric8.metrics.RejectionReason;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.metrics.WriteVerb;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** Counts what the adapter reports, for assertions. */
public final class CountingMetrics implements TallyMetrics {
  public final Map<String, Integer> writes = new ConcurrentHashMap<>();
  public final Map<String, Integer> rejected = new ConcurrentHashMap<>();
  public volatile int applied;
  public volatile int conflicts;
  public volatile int retries;
  public volatile int suppressed;
  public volatile int flushes;
  public volatile int resyncs;
  public volatile int deleted;
  public volatile int expired;
  public volatile int waiting;
  public volatile int rereads;
  public volatile int eventsSuppressed;
  public volatile int writesRefused;
  public volatile int writesInTrouble;
  public final Map<String, Integer> capsReached = new ConcurrentHashMap<>();
  public volatile Supplier<Freshness> freshness = () -> Freshness.NOT_LEADING;

  @Override
  public synchronized void partialApplied() {
    applied++;
    appliedBy.add(caller());
  }

  /**
   * The path of each application, for a failure message: the first frames of the adapter beyond the
   * ledger (an informer's event, a cache applied at the start of a term, a re-list...).
   */
  public synchronized List<String> appliedBy() {
    return List.copyOf(appliedBy);
  }

  private final List<String> appliedBy = new ArrayList<>();

  private static String caller() {
    return StackWalker.getInstance()
        .walk(
            frames ->
                frames
                    .map(f -> f.getClassName().replaceFirst(".*\\.", "") + "." + f.getMethodName())
                    .filter(f -> !f.startsWith("CountingMetrics.") && !f.startsWith("InputLedger."))
                    .limit(3)
                    .collect(java.util.stream.Collectors.joining(" < ")));
  }

  @Override
  public void partialRejected(RejectionReason reason) {
    rejected.merge(reason.metricName(), 1, Integer::sum);
  }

  @Override
  public void write(WriteVerb verb, ReportRef ref) {
    writes.merge(verb.metricName(), 1, Integer::sum);
  }

  @Override
  public synchronized void conflict(ReportRef ref) {
    conflicts++;
  }

  @Override
  public synchronized void retry(int statusCode, Duration delay) {
    retries++;
  }

  @Override
  public synchronized void noOpWriteSuppressed() {
    suppressed++;
  }

  @Override
  public synchronized void flushed(int changes, Duration took) {
    flushes++;
  }

  @Override
  public synchronized void resynced(int changes) {
    resyncs++;
  }

  public int totalWrites() {
    return writes.values().stream().mapToInt(Integer::intValue).sum();
  }

  @Override
  public synchronized void inputObjectDeleted() {
    deleted++;
  }

  @Override
  public synchronized void inputObjectExpired() {
    expired++;
  }

  @Override
  public void inputObjectsWaiting(int count) {
    waiting = count;
  }

  @Override
  public synchronized void reread(int objects, int changes) {
    rereads++;
  }

  @Override
  public synchronized void writeRefused(ReportRef ref, int code) {
    writesRefused++;
  }

  @Override
  public void writesInTrouble(int count) {
    writesInTrouble = count;
  }

  @Override
  public synchronized void rejectionEventSuppressed(String namespace) {
    eventsSuppressed++;
  }

  @Override
  public void capacityReached(String cap) {
    capsReached.merge(cap, 1, Integer::sum);
  }

  public final Map<Lookup, Integer> lookupsFailed = new ConcurrentHashMap<>();
  public final Map<Lookup, Integer> lookupsSkipped = new ConcurrentHashMap<>();

  @Override
  public void resourceLookupFailed(Lookup lookup) {
    lookupsFailed.merge(lookup, 1, Integer::sum);
  }

  @Override
  public void resourceLookupSkipped(Lookup lookup) {
    lookupsSkipped.merge(lookup, 1, Integer::sum);
  }

  @Override
  public void freshness(Supplier<Freshness> source) {
    freshness = source;
  }
}
