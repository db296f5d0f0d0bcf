package dev.tally.report.fabric8.client;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.Supplier;

/**
 * Requests to the API server as every Tally component makes them: each within the API budget,
 * retried on 429 (honouring Retry-After), 5xx and connection errors as the retry policy says; any
 * other failure (404, 409, 410, 422...) is the caller's to handle, thrown at once. The controller
 * hands one to an input ({@code ReportInput.checkAccess}, {@code listAll}, and in its {@code
 * InputContext}), so that an input's reads and writes share the budget of everything else the
 * controller sends.
 */
public interface Requests {
  /**
   * Makes {@code request}, taking a token of the budget before each attempt.
   *
   * @param what names the request in logs and in the exception of an interrupt
   * @throws KubernetesClientException the last failure, when it is not retryable or attempts ran
   *     out
   * @throws dev.tally.report.fabric8.client.ApiInterruptedException if the thread is interrupted
   *     while waiting
   */
  <T> T call(String what, Supplier<T> request);

  /** {@link #call} for a request whose result is not needed. */
  default void run(String what, Runnable request) {
    call(
        what,
        () -> {
          request.run();
          return Boolean.TRUE;
        });
  }
}
