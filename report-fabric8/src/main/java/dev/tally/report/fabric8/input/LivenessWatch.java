package dev.tally.report.fabric8.input;

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

  /** What it watches, for messages: {@code Kyverno's policies}. */
  String what();

  @Override
  void close();
}
