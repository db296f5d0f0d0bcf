package dev.tally.report.fabric8.input;

import dev.tally.report.fabric8.client.RequestFailedException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * A watch an input keeps on which policies exist, so that results of a policy removed from the
 * cluster leave the aggregates ({@link dev.tally.report.api.Liveness}). The controller starts it
 * with itself and closes it with itself; the answers go to the consumer the input was given.
 */
public interface LivenessWatch extends AutoCloseable {
  /**
   * Lists what it watches and starts watching; returns once the first answer was given.
   *
   * @throws TimeoutException if the first list did not complete within {@code timeout}
   * @throws InterruptedException if interrupted while waiting
   * @throws io.fabric8.kubernetes.client.KubernetesClientException if a request failed for good
   */
  void start(Duration timeout) throws InterruptedException, TimeoutException;

  /**
   * {@link #start}, its failures told as the controller's {@code start()} tells them.
   *
   * @throws IllegalStateException if interrupted, or the first list took longer than {@code
   *     timeout}
   * @throws RequestFailedException if a request failed for good
   */
  default void startWithin(Duration timeout) {
    try {
      start(timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + what() + " were listed", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException(what() + " were not listed within " + timeout, e);
    } catch (KubernetesClientException e) {
      throw new RequestFailedException("watch " + what(), e);
    }
  }

  /** What it watches, for messages: {@code Kyverno's policies}. */
  String what();

  @Override
  void close();
}
