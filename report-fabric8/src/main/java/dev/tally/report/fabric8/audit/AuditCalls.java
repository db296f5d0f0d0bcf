package dev.tally.report.fabric8.audit;

import dev.tally.report.fabric8.ApiBudget;
import dev.tally.report.fabric8.RetryPolicy;
import dev.tally.report.fabric8.Sleeper;
import dev.tally.report.merge.audit.AuditBudget;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every request of one audit member goes through here: it takes a token of the member's share of
 * the group's budget, and retries 429 (honouring Retry-After), 5xx and connection errors with the
 * adapter's {@link RetryPolicy}. Other failures (404, 409, 410, ...) go to the caller.
 */
final class AuditCalls {
  private static final Logger LOG = LoggerFactory.getLogger(AuditCalls.class);

  private final RetryPolicy policy;
  private final Random random;
  private final Sleeper sleeper;
  private final LongSupplier ticker;
  private volatile ApiBudget budget;
  private volatile AuditBudget share;

  AuditCalls(
      AuditBudget share, RetryPolicy policy, long seed, Sleeper sleeper, LongSupplier ticker) {
    this.policy = policy;
    this.random = new Random(seed);
    this.sleeper = sleeper;
    this.ticker = ticker;
    this.share = share;
    this.budget = new ApiBudget(share.qps(), share.burst(), ticker, sleeper);
  }

  /** Switches to a new share, as when the membership changed. */
  void share(AuditBudget newShare) {
    if (!newShare.equals(share)) {
      LOG.info("audit budget share now {} qps, burst {}", newShare.qps(), newShare.burst());
      share = newShare;
      budget = new ApiBudget(newShare.qps(), newShare.burst(), ticker, sleeper);
    }
  }

  AuditBudget share() {
    return share;
  }

  <T> T call(String what, Supplier<T> request) {
    for (int attempt = 1; ; attempt++) {
      try {
        budget.acquire();
        return request.get();
      } catch (KubernetesClientException e) {
        int code = e.getCode();
        boolean retryable = code == 0 || code == 429 || code >= 500;
        if (!retryable || attempt >= policy.maxAttempts()) {
          throw e;
        }
        Duration delay = policy.delay(attempt, retryAfter(e), random);
        LOG.debug("{} failed with {}, retry {} in {}", what, code, attempt, delay);
        sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted during " + what, e);
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

  private void sleep(Duration delay) {
    try {
      sleeper.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during backoff", e);
    }
  }

  private static Duration retryAfter(KubernetesClientException e) {
    var status = e.getStatus();
    if (status != null
        && status.getDetails() != null
        && status.getDetails().getRetryAfterSeconds() != null) {
      return Duration.ofSeconds(Math.max(0, status.getDetails().getRetryAfterSeconds()));
    }
    return Duration.ZERO;
  }
}
