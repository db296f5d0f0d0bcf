package dev.tally.report.fabric8.producer;

import dev.tally.report.api.PartialReport;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.merge.EvaluationOrder;
import dev.tally.report.merge.names.KubernetesNames;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue of {@link PartialReportPublisher}: the evaluations waiting to be written, one per
 * (producer, subject), a newer one replacing a queued one; at most {@code maxPending} of them; and
 * the one thread that writes them through {@link PartialReportWrites}.
 */
final class PublishQueue {
  private static final Logger LOG = LoggerFactory.getLogger(PublishQueue.class);

  /** The merge's order: the publisher keeps in the cluster what the aggregator keeps. */
  private static final Comparator<PartialReport> ORDER = EvaluationOrder.ORDER;

  private final PartialReportWrites writes;
  private final int maxPending;
  private final ScheduledExecutorService worker;

  private final Object lock = new Object();
  private final Map<String, Pending> pending = new LinkedHashMap<>();
  private boolean closed;

  private record Pending(PartialReport evaluation, CompletableFuture<Void> done) {}

  PublishQueue(PartialReportWrites writes, int maxPending) {
    this.writes = writes;
    this.maxPending = maxPending;
    this.worker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tally-publisher");
              t.setDaemon(true);
              return t;
            });
  }

  /** See {@link PartialReportPublisher#publish(PartialReport)}. */
  CompletableFuture<Void> publish(PartialReport evaluation) {
    String key = key(evaluation);
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("the publisher is closed");
      }
      Pending queued = pending.get(key);
      if (queued != null) {
        PartialReport latest =
            ORDER.compare(evaluation, queued.evaluation()) > 0 ? evaluation : queued.evaluation();
        pending.put(key, new Pending(latest, queued.done()));
        return queued.done();
      }
      if (pending.size() >= maxPending) {
        throw new PublisherSaturatedException(maxPending);
      }
      var done = new CompletableFuture<Void>();
      pending.put(key, new Pending(evaluation, done));
      worker.execute(() -> drain(key));
      return done;
    }
  }

  /** How many subjects wait to be written. */
  int pendingCount() {
    synchronized (lock) {
      return pending.size();
    }
  }

  /** Runs {@code task} every {@code period} on the publisher's thread, between writes. */
  void every(Duration period, Runnable task) {
    worker.scheduleWithFixedDelay(task, period.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** See {@link PartialReportPublisher#close(Duration)}. */
  void close(Duration timeout) {
    synchronized (lock) {
      closed = true;
    }
    worker.shutdown();
    try {
      if (!worker.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        worker.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      worker.shutdownNow();
    }
    synchronized (lock) {
      for (Pending p : pending.values()) {
        p.done().completeExceptionally(new IllegalStateException("the publisher was closed"));
      }
      pending.clear();
    }
  }

  // ------------------------------------------------------------------ on the publisher thread

  private void drain(String key) {
    Pending p;
    synchronized (lock) {
      p = pending.remove(key);
    }
    if (p == null) {
      return;
    }
    try {
      writes.write(p.evaluation());
      p.done().complete(null);
    } catch (RuntimeException e) {
      var failure =
          new RequestFailedException(
              "publishing the partial report of "
                  + p.evaluation().producer()
                  + " about "
                  + p.evaluation().subject().display(),
              e);
      LOG.warn("{}", failure.getMessage());
      p.done().completeExceptionally(failure);
    }
  }

  private static String key(PartialReport e) {
    return PartialReportWrites.key(
        e.subject(), KubernetesNames.partialReport(e.producer(), e.subject()));
  }
}
