package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.ReportRef;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.metrics.WriteVerb;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link AggregatorController#close()} with leader election: the Lease is released only once the
 * write in progress has ended, so another replica cannot take over while this one still writes; and
 * it is released (holder cleared), so that one can take over at once.
 */
@EnableKubernetesMockClient(crud = true)
class ControllerCloseTest {
  KubernetesMockServer server;
  private ControllerFixture fixture;

  @BeforeEach
  void setUp() {
    fixture = new ControllerFixture(server);
  }

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
  }

  @Test
  void closeReleasesTheLeaseOnlyAfterTheWriteInProgressEnded() throws Exception {
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    TallyMetrics blockFirstWrite =
        new TallyMetrics() {
          @Override
          public void write(WriteVerb verb, ReportRef ref) {
            // on the aggregator thread, in the middle of a flush
            if (writing.getCount() > 0) {
              writing.countDown();
              try {
                proceed.await(60, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }
        };
    AggregatorController controller =
        fixture.started(
            fixture
                .controller(fixture.client, Scenario::newAggregator)
                .metrics(blockFirstWrite)
                .leaderElection(
                    new LeaderElectionSettings(
                        "default",
                        "tally-aggregator",
                        "replica-a",
                        Duration.ofSeconds(3),
                        Duration.ofSeconds(2),
                        Duration.ofMillis(200))));
    Await.until("replica-a leads", controller::isLeading);
    new Scenario(5, 2, 2).publishAll(fixture.publisher, "admission");
    assertThat(writing.await(60, TimeUnit.SECONDS)).as("a flush writes").isTrue();

    try {
      closeWhileAWriteIsInProgress(controller, proceed);
    } finally {
      proceed.countDown();
    }
  }

  private void closeWhileAWriteIsInProgress(AggregatorController controller, CountDownLatch proceed)
      throws InterruptedException {
    Thread closing = new Thread(controller::close, "closing");
    closing.start();
    // close() has done what it does before it waits for the aggregator thread
    Await.until("close waits for the aggregator thread", () -> waitsForTheExecutor(closing));
    // not released yet: neither the holder cleared nor the duration cut short (fabric8's release
    // sets it to 1 s)
    var held = lease();
    assertThat(held.getHolderIdentity())
        .as("the holder while a write is in progress")
        .isEqualTo("replica-a");
    assertThat(held.getLeaseDurationSeconds())
        .as("the duration while a write is in progress")
        .isEqualTo(3);

    proceed.countDown();
    closing.join(TimeUnit.SECONDS.toMillis(60));
    assertThat(closing.isAlive()).isFalse();
    assertThat(lease().getHolderIdentity()).as("the holder after close").isNullOrEmpty();
  }

  /** Whether {@code t} waits in {@code close()} for a task of the controller's executor. */
  private static boolean waitsForTheExecutor(Thread t) {
    StackTraceElement[] stack = t.getStackTrace();
    boolean inFutureTaskGet =
        Arrays.stream(stack)
            .anyMatch(
                f ->
                    f.getClassName().equals("java.util.concurrent.FutureTask")
                        && f.getMethodName().equals("get"));
    boolean inClose =
        Arrays.stream(stack)
            .anyMatch(
                f ->
                    f.getClassName().equals(AggregatorController.class.getName())
                        && f.getMethodName().equals("close"));
    return inFutureTaskGet && inClose;
  }

  private io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec lease() {
    var lease = fixture.client.leases().inNamespace("default").withName("tally-aggregator").get();
    assertThat(lease).as("the Lease").isNotNull();
    return lease.getSpec();
  }
}
