package dev.tally.report.fabric8.internal;

import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.ApiInterruptedException;
import dev.tally.report.fabric8.client.Requests;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.client.Sleeper;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one API request within an {@link ApiBudget}, retrying 429 (honouring Retry-After), 5xx and
 * connection errors as the {@link RetryPolicy} says, and telling the budget of every answer and
 * every 429 so that its rate follows what the server grants. Any other failure (409, 404, 410, 422,
 * ...) is the caller's to handle and is thrown at once. Every request Tally makes goes through one
 * of these: the adapter's publisher and controller, and each audit member.
 *
 * <p>Thread-safe. The jitter comes from the injected {@link Random} and waiting goes through the
 * injected {@link Sleeper}, so tests are deterministic and never really wait.
 *
 * <p>Built with a concurrency above 1 ({@link #ApiCalls(ApiBudget, RetryPolicy, Random, Sleeper,
 * TallyMetrics, int)}), {@link #each} runs that many tasks at once on daemon threads of its own
 * ({@code tally-requests-N}, started when first needed, ended after 30 s idle): a batch of writes
 * waits on the server's round trips side by side instead of one after the other, within the same
 * budget.
 */
public final class ApiCalls implements Requests {
  private static final Logger LOG = LoggerFactory.getLogger(ApiCalls.class);

  private volatile ApiBudget budget;
  private final RetryPolicy policy;
  private final Random random;
  private final Sleeper sleeper;
  private final TallyMetrics metrics;
  private volatile Runnable progress = () -> {};
  private final int concurrency;
  private @Nullable ThreadPoolExecutor lanes;

  /**
   * While a task of {@link #each} runs, on its thread: its batch, whose progress (an attempt or a
   * backoff begun) the calling thread turns into its own and whose {@code mayStart} each retry
   * asks.
   */
  private static final ThreadLocal<@Nullable Batch> BATCH = new ThreadLocal<>();

  /**
   * @param random the jitter of backoff delays; seed it for reproducible delays
   * @param metrics told of every retry
   */
  public ApiCalls(
      ApiBudget budget, RetryPolicy policy, Random random, Sleeper sleeper, TallyMetrics metrics) {
    this(budget, policy, random, sleeper, metrics, 1);
  }

  /**
   * @param concurrency how many of {@link #each}'s tasks run at once (1: one after the other, on
   *     the calling thread)
   * @throws IllegalArgumentException if {@code concurrency} is not between 1 and 64
   */
  public ApiCalls(
      ApiBudget budget,
      RetryPolicy policy,
      Random random,
      Sleeper sleeper,
      TallyMetrics metrics,
      int concurrency) {
    if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
      throw new IllegalArgumentException(
          "concurrency must be between 1 and " + MAX_CONCURRENCY + ", was " + concurrency);
    }
    this.budget = budget;
    this.policy = policy;
    this.random = random;
    this.sleeper = sleeper;
    this.metrics = metrics;
    this.concurrency = concurrency;
  }

  /** The most requests {@link #each} runs at once. */
  public static final int MAX_CONCURRENCY = 64;

  /** How many of {@link #each}'s tasks run at once. */
  public int concurrency() {
    return concurrency;
  }

  /**
   * {@inheritDoc}
   *
   * <p>With a concurrency of 1 the tasks run on the calling thread. Above it they run on this
   * instance's threads, at most {@link #concurrency()} at once; the calling thread starts them in
   * order as others end and runs the progress hook ({@link #onProgress}) each time one ends, so a
   * watchdog of that thread sees a batch move.
   */
  @Override
  public int each(int count, BooleanSupplier mayStart, IntConsumer task) {
    if (concurrency == 1 || count <= 1 || BATCH.get() != null) {
      // one after the other on this thread (a task's own batch, too: its lanes may all be busy)
      return eachHere(count, mayStart, task);
    }
    Batch batch = new Batch(mayStart, true);
    ExecutorCompletionService<Integer> done = new ExecutorCompletionService<>(lanes());
    Set<Future<Integer>> inFlight = new HashSet<>();
    long seen = 0;
    int started = 0;
    boolean stopped = false;
    @Nullable Throwable failure = null;
    try {
      while (true) {
        while (!stopped && failure == null && started < count && inFlight.size() < concurrency) {
          if (!mayStart.getAsBoolean()) {
            stopped = true;
            break;
          }
          int index = started++;
          inFlight.add(
              done.submit(
                  () -> {
                    batch.running.incrementAndGet();
                    BATCH.set(batch);
                    try {
                      task.accept(index);
                    } finally {
                      BATCH.remove();
                      batch.running.decrementAndGet();
                    }
                    return index;
                  }));
        }
        if (inFlight.isEmpty()) {
          break;
        }
        // a task's attempts and backoffs are the calling thread's progress, seen within 100 ms
        @Nullable Future<Integer> ended = done.poll(100, TimeUnit.MILLISECONDS);
        long now = batch.moved.get();
        if (now != seen || ended != null) {
          seen = now;
          progress.run();
        }
        if (ended == null) {
          continue;
        }
        inFlight.remove(ended);
        try {
          ended.get();
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Error error) {
            // the process is in trouble: say so now, not once the others end
            cancel(inFlight, batch);
            throw error;
          }
          if (failure == null) {
            failure = e.getCause();
          }
        }
      }
    } catch (InterruptedException e) {
      cancel(inFlight, batch);
      Thread.currentThread().interrupt();
      throw new ApiInterruptedException("requests", e);
    }
    if (failure instanceof RuntimeException r) {
      throw r;
    }
    if (failure != null) {
      throw new IllegalStateException("a request task failed", failure);
    }
    return started;
  }

  /** {@link #each} one task after the other on this thread, retries asking {@code mayStart} too. */
  private int eachHere(int count, BooleanSupplier mayStart, IntConsumer task) {
    @Nullable Batch outer = BATCH.get();
    if (outer != null) {
      return Requests.super.each(count, mayStart, task); // within a task: its batch rules
    }
    BATCH.set(new Batch(mayStart, false));
    try {
      return Requests.super.each(count, mayStart, task);
    } finally {
      BATCH.remove();
    }
  }

  /**
   * Interrupts the tasks still running and waits for them to end, at most {@link #CANCEL_WAIT}: a
   * request already sent may still be answered, but none is sent after this returns (an interrupted
   * task's next attempt is refused, {@link #call}).
   */
  private static void cancel(Set<Future<Integer>> inFlight, Batch batch) {
    for (Future<Integer> f : inFlight) {
      f.cancel(true);
    }
    long deadline = System.nanoTime() + CANCEL_WAIT.toNanos();
    boolean interrupted = false;
    while (batch.running.get() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** How long {@link #cancel} waits for interrupted tasks to end. */
  private static final Duration CANCEL_WAIT = Duration.ofSeconds(10);

  /**
   * What the tasks of one {@link #each} share: whether they may go on ({@code mayStart}, asked
   * again before each retry), their progress for the calling thread, and how many run now.
   */
  private static final class Batch {
    final BooleanSupplier mayGoOn;
    final boolean onLanes;
    final AtomicLong moved = new AtomicLong();
    final AtomicInteger running = new AtomicInteger();

    /**
     * @param onLanes whether its tasks run on the lanes (their progress is counted for the calling
     *     thread) or on the calling thread (their progress is its own)
     */
    Batch(BooleanSupplier mayGoOn, boolean onLanes) {
      this.mayGoOn = mayGoOn;
      this.onLanes = onLanes;
    }
  }

  /** An attempt or a backoff begins: the hook on the calling thread, or the batch's count. */
  private void progress() {
    @Nullable Batch batch = BATCH.get();
    if (batch != null && batch.onLanes) {
      batch.moved.incrementAndGet();
    } else {
      progress.run();
    }
  }

  /** Whether this is a task of {@link #each} on its lanes whose batch was cancelled. */
  private static boolean cancelledTask() {
    @Nullable Batch batch = BATCH.get();
    return batch != null && batch.onLanes && Thread.currentThread().isInterrupted();
  }

  /**
   * Whether a task of {@link #each} may make its next attempt: not once its thread was interrupted
   * (the batch was cancelled) and not once the batch's {@code mayStart} says no (a lease lost: no
   * retry goes out after it, as no write starts). Outside a batch, always.
   */
  private static boolean batchGoesOn() {
    @Nullable Batch batch = BATCH.get();
    return batch == null
        || (!Thread.currentThread().isInterrupted() && batch.mayGoOn.getAsBoolean());
  }

  private synchronized ThreadPoolExecutor lanes() {
    if (lanes == null) {
      AtomicInteger n = new AtomicInteger();
      ThreadPoolExecutor pool =
          new ThreadPoolExecutor(
              concurrency,
              concurrency,
              30,
              TimeUnit.SECONDS,
              new LinkedBlockingQueue<>(),
              r -> {
                Thread t = new Thread(r, "tally-requests-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
      pool.allowCoreThreadTimeOut(true);
      lanes = pool;
    }
    return lanes;
  }

  /**
   * Switches to another budget from the next attempt on, as an audit member does when its share of
   * the group's budget changes.
   */
  public void useBudget(ApiBudget newBudget) {
    this.budget = newBudget;
  }

  /**
   * Runs {@code hook} each time a request attempt or a backoff begins, on the calling thread: a
   * sign of progress for a watchdog of that thread (the controller's heartbeat).
   */
  public void onProgress(Runnable hook) {
    this.progress = hook;
  }

  /** The budget requests take their tokens from now. */
  public ApiBudget budget() {
    return budget;
  }

  /**
   * Runs {@code request}, taking a token of the budget before each attempt.
   *
   * @param what names the request in logs and in the exception of an interrupt
   * @throws KubernetesClientException the last failure, when it is not retryable or attempts ran
   *     out
   * @throws ApiInterruptedException if the thread is interrupted while waiting
   */
  @Override
  public <T> T call(String what, Supplier<T> request) {
    for (int attempt = 1; ; attempt++) {
      try {
        progress();
        budget.acquire();
        progress();
        if (cancelledTask()) {
          throw new ApiInterruptedException(
              what, new InterruptedException("its batch was cancelled"));
        }
        T answer = request.get();
        budget.answered();
        return answer;
      } catch (KubernetesClientException e) {
        int code = e.getCode();
        if (code == 429) {
          budget.throttled(retryAfter(e));
        } else if (code >= 400 && code < 500) {
          budget.answered(); // 404, 409, 410, 422...: the server answered
        }
        if (!retryable(code) || attempt >= policy.maxAttempts() || !batchGoesOn()) {
          throw e;
        }
        Duration delay = policy.delay(attempt, retryAfter(e), random);
        LOG.debug("{} failed with {}, retry {} in {}", what, code, attempt, delay);
        metrics.retry(code, delay);
        progress();
        sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ApiInterruptedException(what, e);
      }
    }
  }

  /**
   * Whether a failure says the object changed (409) or vanished (404) since it was read: the caller
   * re-reads, or leaves it to its next pass.
   */
  public static boolean changedMeanwhile(KubernetesClientException e) {
    return e.getCode() == HttpURLConnection.HTTP_CONFLICT
        || e.getCode() == HttpURLConnection.HTTP_NOT_FOUND;
  }

  static boolean retryable(int code) {
    // no HTTP response at all (connection refused, reset or timed out): fabric8 says -1 when it
    // wraps the I/O error, 0 in a few older paths
    return code <= 0 || code == 429 || code >= 500;
  }

  static Duration retryAfter(KubernetesClientException e) {
    var status = e.getStatus();
    if (status != null
        && status.getDetails() != null
        && status.getDetails().getRetryAfterSeconds() != null) {
      return Duration.ofSeconds(Math.max(0, status.getDetails().getRetryAfterSeconds()));
    }
    return Duration.ZERO;
  }

  private void sleep(Duration delay) {
    try {
      sleeper.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiInterruptedException("backoff", e);
    }
  }
}
