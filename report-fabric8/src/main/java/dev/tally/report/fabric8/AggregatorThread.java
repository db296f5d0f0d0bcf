package dev.tally.report.fabric8;

import dev.tally.report.fabric8.client.ApiInterruptedException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread, {@code tally-aggregator}, that owns the aggregator and all bookkeeping: informer
 * callbacks, timers and the public methods only hand it tasks. A task that fails with an exception
 * does not end the thread: it is logged and {@code onFailure} runs (the controller resyncs). A task
 * that fails with an {@link Error} (an {@link OutOfMemoryError}, a {@link StackOverflowError}, a
 * linkage error) leaves the state it was changing unknown: {@code onFatal} runs once with it (the
 * controller stops and reports it) and every task after it is dropped. Once stopped, tasks are
 * dropped.
 *
 * <p>Its heartbeat: the time of its last sign of progress (a task began or ended, or a task on it
 * began an API request or a backoff, {@link #progress()}), and whether a task runs now. {@link
 * #stalledFor()} is how long a running task has made no progress; an idle thread is never stalled.
 */
final class AggregatorThread {
  private static final Logger LOG = LoggerFactory.getLogger(AggregatorThread.class);

  private final ScheduledExecutorService executor;
  private final Runnable onFailure;
  private final Consumer<Error> onFatal;
  private final LongSupplier nanoTicker;
  private volatile @Nullable Thread thread;
  private volatile boolean busy;
  private volatile long lastProgress;
  private volatile @Nullable Error fatal;

  AggregatorThread(Runnable onFailure, Consumer<Error> onFatal, LongSupplier nanoTicker) {
    this.onFailure = onFailure;
    this.onFatal = onFatal;
    this.nanoTicker = nanoTicker;
    this.lastProgress = nanoTicker.getAsLong();
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tally-aggregator");
              t.setDaemon(true);
              thread = t;
              return t;
            });
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
   * task: one that throws an exception is logged, {@code onFailure} runs, and the repetition goes
   * on (bare, a {@link ScheduledExecutorService#scheduleWithFixedDelay} task that throws is never
   * run again, silently); one that throws an {@link Error} is fatal.
   */
  void every(Duration period, Runnable task) {
    try {
      executor.scheduleWithFixedDelay(
          guarded(task), period.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      LOG.debug("controller closed; dropped a periodic task");
    }
  }

  /**
   * Runs {@code task}; the future completes when it is done, or with what it threw (an {@link
   * Error} is also fatal).
   */
  CompletableFuture<Void> run(Runnable task) {
    return supply(
        () -> {
          task.run();
          return null;
        });
  }

  /**
   * Computes {@code value}; the future completes with it, or with what it threw (an {@link Error}
   * is also fatal).
   */
  <T> CompletableFuture<T> supply(Supplier<T> value) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Runnable task =
        () -> {
          if (fatal != null) {
            result.completeExceptionally(dropped());
            return;
          }
          begin();
          try {
            result.complete(value.get());
          } catch (Error e) {
            result.completeExceptionally(e);
            fatal(e);
          } catch (RuntimeException e) {
            result.completeExceptionally(e);
          } finally {
            end();
          }
        };
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(e);
    }
    return result;
  }

  /**
   * Runs {@code last} after the tasks queued before it, waits for it at most {@code timeout}, and
   * stops the thread: a task running then is interrupted, the others are dropped. Not to be called
   * from the thread itself.
   */
  void stop(Runnable last, Duration timeout) {
    try {
      executor.submit(last).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception ex) {
      LOG.debug("step down on close did not finish: {}", ex.toString());
    }
    executor.shutdownNow();
  }

  /**
   * A sign of progress of the task running on this thread (an API request or a backoff begins);
   * ignored when called from another thread, so that other threads' requests never hide a stuck
   * aggregator thread.
   */
  void progress() {
    if (Thread.currentThread() == thread) {
      lastProgress = nanoTicker.getAsLong();
    }
  }

  /**
   * How long the running task has shown no progress; zero when no task runs.
   *
   * @see #progress()
   */
  Duration stalledFor() {
    if (!busy) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(Math.max(0, nanoTicker.getAsLong() - lastProgress));
  }

  /** The {@link Error} a task threw, after which the thread runs nothing more; null if none. */
  @Nullable Error fatal() {
    return fatal;
  }

  private Runnable guarded(Runnable task) {
    return () -> {
      if (fatal != null) {
        return; // the state is unknown: nothing more runs
      }
      begin();
      try {
        task.run();
      } catch (ApiInterruptedException e) {
        LOG.debug("interrupted: {}", e.getMessage());
      } catch (RuntimeException e) {
        // one failed task must not kill the thread; the next resync repairs the state
        LOG.error("aggregator task failed; will resync", e);
        onFailure.run();
      } catch (Error e) {
        fatal(e);
      } finally {
        end();
      }
    };
  }

  private void begin() {
    lastProgress = nanoTicker.getAsLong();
    busy = true;
  }

  private void end() {
    busy = false;
    lastProgress = nanoTicker.getAsLong();
  }

  private void fatal(Error e) {
    if (fatal != null) {
      return;
    }
    fatal = e;
    LOG.error("aggregator task failed with an Error; the controller stops", e);
    try {
      onFatal.accept(e);
    } catch (Throwable t) { // NOPMD: reporting must not fail the report
      LOG.error("reporting the fatal error failed", t);
    }
  }

  private static RejectedExecutionException dropped() {
    return new RejectedExecutionException(
        "the aggregator thread stopped after a fatal error; nothing more runs on it");
  }
}
