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
import java.util.Random;
import java.util.function.Supplier;
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
 */
public final class ApiCalls implements Requests {
  private static final Logger LOG = LoggerFactory.getLogger(ApiCalls.class);

  private volatile ApiBudget budget;
  private final RetryPolicy policy;
  private final Random random;
  private final Sleeper sleeper;
  private final TallyMetrics metrics;
  private volatile Runnable progress = () -> {};

  /**
   * @param random the jitter of backoff delays; seed it for reproducible delays
   * @param metrics told of every retry
   */
  public ApiCalls(
      ApiBudget budget, RetryPolicy policy, Random random, Sleeper sleeper, TallyMetrics metrics) {
    this.budget = budget;
    this.policy = policy;
    this.random = random;
    this.sleeper = sleeper;
    this.metrics = metrics;
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
        progress.run();
        budget.acquire();
        progress.run();
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
        if (!retryable(code) || attempt >= policy.maxAttempts()) {
          throw e;
        }
        Duration delay = policy.delay(attempt, retryAfter(e), random);
        LOG.debug("{} failed with {}, retry {} in {}", what, code, attempt, delay);
        metrics.retry(code, delay);
        progress.run();
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
