package dev.tally.report.fabric8.client;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
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

  /**
   * Runs {@code task} for the indexes 0 to {@code count - 1}, started in that order, as many at
   * once as the instance allows (one after the other, on the calling thread, unless it was built
   * with more: {@code ApiCalls}' concurrency), and returns once every task started has ended.
   * {@code mayStart} is asked on the calling thread before each task starts; once it says no, no
   * more start, and no task's request is retried (Tally's own requests ask it again before each
   * retry, from the task's thread: it must be thread-safe). Tasks make their requests with {@link
   * #call} (the budget is shared, so running them side by side never sends more than it grants) and
   * keep their answers and failures themselves: each writes its own slot of what the caller
   * collects.
   *
   * @return how many started: the tasks of indexes 0 to the result - 1 ran
   * @throws dev.tally.report.fabric8.client.ApiInterruptedException if the calling thread is
   *     interrupted while tasks run: those still running are interrupted and waited for (a few
   *     seconds at most), none more start and no interrupted task sends another request
   * @throws RuntimeException the first exception a task let escape: none more start, and it is
   *     thrown once the tasks still running have ended (an {@link Error} is thrown at once)
   */
  default int each(int count, BooleanSupplier mayStart, IntConsumer task) {
    for (int i = 0; i < count; i++) {
      if (!mayStart.getAsBoolean()) {
        return i;
      }
      task.accept(i);
    }
    return count;
  }

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
