package dev.tally.report.fabric8;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread, {@code tally-aggregator}, that owns the aggregator and all bookkeeping: informer
 * callbacks, timers and the public methods only hand it tasks. A task that fails does not end the
 * thread: it is logged and {@code onFailure} runs (the controller resyncs). Once stopped, tasks are
 * dropped.
 */
final class AggregatorThread {
  private static final Logger LOG = LoggerFactory.getLogger(AggregatorThread.class);

  private final ScheduledExecutorService executor =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "tally-aggregator");
            t.setDaemon(true);
            return t;
          });
  private final Runnable onFailure;

  AggregatorThread(Runnable onFailure) {
    this.onFailure = onFailure;
  }

  /** Runs {@code task} soon. */
  void submit(Runnable task) {
    try {
      executor.execute(guarded(task));
    } catch (RejectedExecutionException e) {
      LOG.debug("controller closed; dropped a task");
    }
  }

  /** Runs {@code task} after {@code delay}. */
  void schedule(Runnable task, Duration delay) {
    try {
      executor.schedule(guarded(task), delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      LOG.debug("controller closed; dropped a timer");
    }
  }

  /**
   * Runs {@code task} every {@code period}, the first time after one. Guarded like every other
   * task: one that throws is logged, {@code onFailure} runs, and the repetition goes on (bare, a
   * {@link ScheduledExecutorService#scheduleWithFixedDelay} task that throws is never run again).
   */
  void every(Duration period, Runnable task) {
    try {
      executor.scheduleWithFixedDelay(
          guarded(task), period.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      LOG.debug("controller closed; dropped a periodic task");
    }
  }

  /** Runs {@code task}; the future completes when it is done, or with what it threw. */
  CompletableFuture<Void> run(Runnable task) {
    return CompletableFuture.runAsync(task, executor);
  }

  /** Computes {@code value}; the future completes with it, or with what it threw. */
  <T> CompletableFuture<T> supply(Supplier<T> value) {
    return CompletableFuture.supplyAsync(value, executor);
  }

  /**
   * Runs {@code last} after the tasks queued before it, waits for it at most {@code timeout}, and
   * stops the thread: a task running then is interrupted, the others are dropped.
   */
  void stop(Runnable last, Duration timeout) {
    try {
      executor.submit(last).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception ex) {
      LOG.debug("step down on close did not finish: {}", ex.toString());
    }
    executor.shutdownNow();
  }

  private Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (ApiInterruptedException e) {
        LOG.debug("interrupted: {}", e.getMessage());
      } catch (RuntimeException e) {
        // one failed task must not kill the thread; the next resync repairs the state
        LOG.error("aggregator task failed; will resync", e);
        onFailure.run();
      }
    };
  }
}
