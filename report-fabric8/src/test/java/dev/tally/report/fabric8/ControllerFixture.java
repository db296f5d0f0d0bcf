package dev.tally.report.fabric8;

import dev.tally.report.api.ReportAggregator;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the controller tests share: a client of the mock API server, a publisher for the producers,
 * controllers configured to retry fast and never really sleep, and everything to close after the
 * test, closed in reverse order of creation: controllers and publishers before the clients they
 * use, every client (with {@link MockCluster#close}) before the mock server stops.
 */
public final class ControllerFixture implements AutoCloseable {
  /** The retries of the controllers: 4 attempts, 10 ms doubling up to 50 ms. */
  public static final RetryPolicy FAST_RETRIES =
      new RetryPolicy(4, Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofSeconds(60));

  final KubernetesClient client;
  final PartialReportPublisher publisher;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  ControllerFixture(KubernetesMockServer server) {
    client = MockCluster.client(server);
    publisher =
        closeLater(
            PartialReportPublisher.builder(client)
                .budget(ApiBudget.of(10_000, 10_000))
                .sleeper(new RecordingSleeper())
                .build());
  }

  /**
   * A controller on {@code kubernetes}: an ample budget, {@link #FAST_RETRIES}, a sleeper that does
   * not wait, its own virtual clock, a 50 ms flush window and no periodic resync. Tests override
   * what they need.
   */
  AggregatorController.Builder controller(
      KubernetesClient kubernetes, Supplier<ReportAggregator> aggregators) {
    return AggregatorController.builder(kubernetes)
        .aggregator(aggregators)
        .budget(ApiBudget.of(10_000, 10_000))
        .retryPolicy(FAST_RETRIES)
        .sleeper(new RecordingSleeper())
        .clock(new VirtualTime(Instant.parse("2030-01-01T00:00:00Z")))
        .flushWindow(Duration.ofMillis(50))
        .resyncPeriod(Duration.ZERO)
        .syncTimeout(Duration.ofSeconds(60));
  }

  /** Builds the controller, to be closed after the test, and starts it. */
  AggregatorController started(AggregatorController.Builder builder) {
    return closeLater(builder.build()).start();
  }

  /** Closes {@code closeable} after the test, before whatever was registered earlier. */
  <T extends AutoCloseable> T closeLater(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  @Override
  public void close() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    MockCluster.close(client);
  }
}
