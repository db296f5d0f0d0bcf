package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.metrics.Freshness;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.WireCoverageKey;
import dev.tally.report.fabric8.resource.WireTimestamp;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Nothing freezes silently: an {@link Error} on the aggregator thread or in one of its timers stops
 * the controller and is reported through {@code failure()}; a task that makes no progress, or a
 * periodic resync that no longer runs, shows in {@code stalled()}; how long inputs wait to be
 * written shows in {@code freshness()} and {@link TallyMetrics#freshness}. Faults are injected
 * through the public API: the aggregator the controller is given.
 */
@EnableKubernetesMockClient(crud = true)
class ControllerLivenessTest {
  KubernetesMockServer server;
  private ControllerFixture fixture;
  private final AtomicReference<FaultyAggregator> aggregator = new AtomicReference<>();
  private final VirtualTime ticker = new VirtualTime(Instant.parse("2030-01-01T00:00:00Z"));
  private final CountingMetrics metrics = new CountingMetrics();

  @BeforeEach
  void setUp() {
    fixture = new ControllerFixture(server);
  }

  @AfterEach
  void tearDown() throws Exception {
    FaultyAggregator agg = aggregator.get();
    if (agg != null) {
      agg.release.countDown();
    }
    fixture.close();
  }

  private AggregatorController.Builder controller() {
    return fixture
        .controller(
            fixture.client,
            () -> {
              var agg = new FaultyAggregator(Scenario.newAggregator());
              aggregator.set(agg);
              return agg;
            })
        .metrics(metrics)
        .nanoTicker(ticker::nanos)
        .stallBound(Duration.ofMinutes(1));
  }

  private AggregatorController converged(AggregatorController.Builder builder, Scenario scenario)
      throws Exception {
    AggregatorController controller = fixture.started(builder);
    Await.until("rebuilt", controller::isRebuilt);
    scenario.publishAll(fixture.publisher, "admission");
    scenario.awaitConverged(fixture.client);
    return controller;
  }

  private void publishOne(Scenario scenario) throws Exception {
    Subject s = scenario.subjects.get(0);
    fixture.publisher.publish(scenario.evaluate("background", s)).get(60, TimeUnit.SECONDS);
  }

  private static Throwable failureOf(AggregatorController controller) {
    Throwable thrown = catchThrowable(() -> controller.failure().get(60, TimeUnit.SECONDS));
    assertThat(thrown)
        .as("failure() completes exceptionally")
        .isInstanceOf(ExecutionException.class);
    return thrown.getCause();
  }

  @Test
  void anErrorInAFlushStopsTheControllerAndIsReported() throws Exception {
    var scenario = new Scenario(31, 2, 2);
    AggregatorController controller = converged(controller(), scenario);
    assertThat(controller.stalled()).isEmpty();
    assertThat(controller.failure()).isNotDone();

    aggregator.get().throwOnFlush.set(new OutOfMemoryError("injected"));
    publishOne(scenario);

    assertThat(failureOf(controller)).isInstanceOf(OutOfMemoryError.class).hasMessage("injected");
    assertThat(controller.isLeading()).isFalse();
    assertThat(controller.stalled())
        .hasValueSatisfying(why -> assertThat(why).contains("OutOfMemoryError"));
    // nothing more runs on the thread: a public call fails instead of hanging or pretending
    assertThat(catchThrowable(() -> controller.flushNow().get(60, TimeUnit.SECONDS)))
        .isInstanceOf(ExecutionException.class);
  }

  @Test
  void anErrorInAPeriodicTaskStopsTheController() throws Exception {
    var scenario = new Scenario(32, 1, 2);
    AggregatorController controller =
        converged(controller().resyncPeriod(Duration.ofMillis(100)), scenario);

    aggregator.get().throwOnExpire.set(new StackOverflowError("injected"));

    assertThat(failureOf(controller)).isInstanceOf(StackOverflowError.class);
    assertThat(controller.isLeading()).isFalse();
  }

  @Test
  void anExceptionInATaskIsNotFatal() throws Exception {
    var scenario = new Scenario(33, 1, 2);
    AggregatorController controller = converged(controller(), scenario);

    aggregator.get().throwOnFlush.set(new IllegalStateException("injected"));
    publishOne(scenario);
    scenario.awaitConverged(fixture.client);

    assertThat(controller.failure()).isNotDone();
    assertThat(controller.stalled()).isEmpty();
    assertThat(controller.isLeading()).isTrue();
  }

  @Test
  void aTaskThatMakesNoProgressPastTheBoundIsStalled() throws Exception {
    var scenario = new Scenario(34, 1, 2);
    AggregatorController controller = converged(controller(), scenario);
    FaultyAggregator agg = aggregator.get();
    agg.blockFlush = true;
    publishOne(scenario);
    assertThat(agg.blocked.await(60, TimeUnit.SECONDS)).as("a flush blocks").isTrue();

    assertThat(controller.stalled()).as("within the bound").isEmpty();
    ticker.advance(Duration.ofSeconds(61));
    assertThat(controller.stalled())
        .hasValueSatisfying(why -> assertThat(why).contains("no progress for PT1M1S"));

    agg.release.countDown();
    Await.until("alive again once the task ends", () -> controller.stalled().isEmpty());
    assertThat(controller.failure()).isNotDone();
  }

  @Test
  void aPeriodicResyncThatStopsRunningIsStalled() throws Exception {
    var scenario = new Scenario(35, 1, 1);
    // a period that does not come round during the test, on the real clock
    AggregatorController controller =
        converged(controller().resyncPeriod(Duration.ofHours(1)), scenario);
    // A task the aggregator thread happens to run while the ticker jumps looks stuck for the jump
    // until it ends (its own rule, tested above); so each check waits, bounded, for what the
    // periodic rule alone would say: never empty if that rule fired too early, never its reason
    // if it did not fire.
    ticker.advance(Duration.ofHours(1));
    Await.until("within the period and the bound", () -> controller.stalled().isEmpty());

    ticker.advance(Duration.ofMinutes(2));
    Await.until(
        "the periodic resync's stall seen",
        () ->
            controller
                .stalled()
                .filter(why -> why.contains("periodic resync has not run"))
                .isPresent());
    assertThat(controller.stalled())
        .hasValueSatisfying(why -> assertThat(why).contains("periodic resync has not run"));
  }

  @Test
  void freshnessShowsTheOldestInputNotYetWritten() throws Exception {
    var scenario = new Scenario(36, 1, 2);
    AggregatorController controller = converged(controller(), scenario);
    Await.until("nothing waits", () -> controller.freshness().oldestUnmergedInput().isZero());
    assertThat(metrics.freshness.get()).isEqualTo(controller.freshness());

    FaultyAggregator agg = aggregator.get();
    agg.blockFlush = true;
    publishOne(scenario);
    assertThat(agg.blocked.await(60, TimeUnit.SECONDS)).as("a flush blocks").isTrue();
    ticker.advance(Duration.ofMinutes(5));

    Freshness stale = controller.freshness();
    assertThat(stale.oldestUnmergedInput()).isGreaterThanOrEqualTo(Duration.ofMinutes(5));
    assertThat(stale.sinceLastFlush()).isGreaterThanOrEqualTo(Duration.ofMinutes(5));
    assertThat(stale.sinceLastResync()).isGreaterThanOrEqualTo(Duration.ofMinutes(5));
    assertThat(metrics.freshness.get().oldestUnmergedInput())
        .isEqualTo(stale.oldestUnmergedInput());

    agg.release.countDown();
    Await.until(
        "the input is written", () -> controller.freshness().oldestUnmergedInput().isZero());
    assertThat(controller.freshness().sinceLastFlush()).isLessThan(Duration.ofMinutes(5));
    controller.resyncNow().get(60, TimeUnit.SECONDS);
    assertThat(controller.freshness().sinceLastResync()).isZero();
  }

  @Test
  void anInputThatIsRefusedDoesNotWait() throws Exception {
    var scenario = new Scenario(37, 1, 1);
    AggregatorController controller = converged(controller(), scenario);
    // about a subject in another namespace: refused, nothing to write
    var refused = new PartialReportResource();
    refused.setMetadata(new ObjectMetaBuilder().withNamespace("team-0").withName("stray").build());
    refused.setSpec(
        new PartialReportSpec(
            "scanner",
            new ObjectReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Pod")
                .withNamespace("team-1")
                .withName("app")
                .withUid("uid-stray")
                .build(),
            null,
            new WireTimestamp(1, 0),
            1L,
            List.of(new WireCoverageKey("kyverno", "require-labels")),
            List.of()));
    fixture.client.resource(refused).create();
    Await.until("it is refused", () -> !metrics.rejected.isEmpty());
    controller.flushNow().get(60, TimeUnit.SECONDS);

    ticker.advance(Duration.ofHours(1));
    assertThat(controller.freshness().oldestUnmergedInput()).isZero();
  }
}
