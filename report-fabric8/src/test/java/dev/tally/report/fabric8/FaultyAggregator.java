package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.HeldCounts;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Timestamp;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A test seam through the public API: a {@link ReportAggregator} that delegates to a real one and,
 * once armed, throws (or blocks) on the aggregator thread at its next {@code flush()} or {@code
 * expireTombstones} (the periodic resync's first step).
 */
final class FaultyAggregator implements ReportAggregator {
  /** What the next armed call does. */
  final AtomicReference<Throwable> throwOnFlush = new AtomicReference<>();

  final AtomicReference<Throwable> throwOnExpire = new AtomicReference<>();

  /** Counted down when a flush blocks; the flush waits on {@link #release}. */
  final CountDownLatch blocked = new CountDownLatch(1);

  final CountDownLatch release = new CountDownLatch(1);
  volatile boolean blockFlush;

  private final ReportAggregator delegate;

  FaultyAggregator(ReportAggregator delegate) {
    this.delegate = delegate;
  }

  @Override
  public void apply(PartialReport partial) {
    delegate.apply(partial);
  }

  @Override
  public void deleteSubject(String namespace, String uid, Timestamp deletedAt) {
    delegate.deleteSubject(namespace, uid, deletedAt);
  }

  @Override
  public void setLiveness(Liveness liveness) {
    delegate.setLiveness(liveness);
  }

  @Override
  public int expireTombstones(Timestamp now) {
    sneakyThrow(throwOnExpire.getAndSet(null));
    return delegate.expireTombstones(now);
  }

  @Override
  public ChangeSet flush() {
    sneakyThrow(throwOnFlush.getAndSet(null));
    if (blockFlush) {
      blockFlush = false;
      blocked.countDown();
      try {
        release.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return delegate.flush();
  }

  @Override
  public ChangeSet resync(Collection<AggregateReport> observed) {
    return delegate.resync(observed);
  }

  @Override
  public ChangeSet resyncOnly(Collection<ReportRef> refs, Collection<AggregateReport> observed) {
    return delegate.resyncOnly(refs, observed);
  }

  @Override
  public HeldCounts held() {
    return delegate.held();
  }

  @Override
  public List<AggregateReport> aggregates() {
    return delegate.aggregates();
  }

  @Override
  public long resultCount() {
    return delegate.resultCount();
  }

  @Override
  public AggregatorConfig config() {
    return delegate.config();
  }

  private static void sneakyThrow(Throwable t) {
    if (t instanceof Error e) {
      throw e;
    }
    if (t instanceof RuntimeException e) {
      throw e;
    }
  }
}
