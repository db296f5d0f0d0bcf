package dev.tally.report.fabric8;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Random;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one API request within the shared {@link ApiBudget}, retrying 429, 5xx and connection errors
 * as the {@link RetryPolicy} says. Any other failure (409, 404, 410, 422, ...) is the caller's to
 * handle and is thrown at once.
 */
final class ApiCalls {
  private static final Logger LOG = LoggerFactory.getLogger(ApiCalls.class);

  private final ApiBudget budget;
  private final RetryPolicy policy;
  private final Random random;
  private final Sleeper sleeper;
  private final TallyMetrics metrics;

  ApiCalls(
      ApiBudget budget, RetryPolicy policy, Random random, Sleeper sleeper, TallyMetrics metrics) {
    this.budget = budget;
    this.policy = policy;
    this.random = random;
    this.sleeper = sleeper;
    this.metrics = metrics;
  }

  /**
   * @throws KubernetesClientException the last failure, when it is not retryable or attempts ran
   *     out
   * @throws ApiInterruptedException if the thread is interrupted while waiting
   */
  <T> T call(String what, Supplier<T> request) {
    for (int attempt = 1; ; attempt++) {
      try {
        budget.acquire();
        return request.get();
      } catch (KubernetesClientException e) {
        int code = e.getCode();
        if (!retryable(code) || attempt >= policy.maxAttempts()) {
          throw e;
        }
        Duration delay = policy.delay(attempt, retryAfter(e), random);
        LOG.debug("{} failed with {}, retry {} in {}", what, code, attempt, delay);
        metrics.retry(code, delay);
        sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ApiInterruptedException(what, e);
      }
    }
  }

  void run(String what, Runnable request) {
    call(
        what,
        () -> {
          request.run();
          return Boolean.TRUE;
        });
  }

  static boolean retryable(int code) {
    // 0: no HTTP response at all (connection refused or reset)
    return code == 0 || code == 429 || code >= 500;
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
