package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Aggregates are derived state: restarts and failovers rebuild them with nothing lost. */
@EnableKubernetesMockClient(crud = true)
class AggregatorRecoveryTest {
  KubernetesMockServer server;
  KubernetesClient client;
  private ControllerFixture fixture;
  private PartialReportPublisher publisher;

  @BeforeEach
  void setUp() {
    fixture = new ControllerFixture(server);
    client = fixture.client;
    publisher = fixture.publisher;
  }

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
  }

  private AggregatorController controller(KubernetesClient c, LeaderElectionSettings election) {
    return controller(c, election, Duration.ZERO);
  }

  private AggregatorController controller(
      KubernetesClient c, LeaderElectionSettings election, Duration resyncPeriod) {
    var b = fixture.controller(c, Scenario::newAggregator).resyncPeriod(resyncPeriod);
    if (election != null) {
      b.leaderElection(election);
    }
    return fixture.closeLater(b.build());
  }

  private static AggregateReport orphan() {
    return new AggregateReport(
        new ReportRef(ReportKind.POLICY_REPORT, "team-9", "tally-namespace-all"),
        // what this grouping once wrote for a namespace that has no results any more
        Map.of(
            WireNames.MANAGED_BY_LABEL,
            "tally",
            WireNames.GROUP_LABEL,
            "gone",
            "tally.dev/grouping",
            "namespace"),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        List.of(),
        Summary.EMPTY,
        "stale");
  }

  /**
   * A user aggregator that throws once in the periodic resync (here from {@code expireTombstones})
   * must not end the periodic resyncs: they are the safety net against drift.
   */
  @Test
  void aPeriodicResyncThatThrowsDoesNotStopTheNextOnes() throws Exception {
    AtomicInteger expiries = new AtomicInteger();
    Supplier<ReportAggregator> throwingOnce =
        () -> {
          ReportAggregator real = Scenario.newAggregator();
          return (ReportAggregator)
              Proxy.newProxyInstance(
                  ReportAggregator.class.getClassLoader(),
                  new Class<?>[] {ReportAggregator.class},
                  (proxy, method, args) -> {
                    if (method.getName().equals("expireTombstones")
                        && expiries.incrementAndGet() == 1) {
                      throw new IllegalStateException("a user aggregator's bug, once");
                    }
                    try {
                      return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
        };
    fixture
        .closeLater(
            fixture.controller(client, throwingOnce).resyncPeriod(Duration.ofMillis(50)).build())
        .start();
    Await.until(
        "periodic resyncs go on after one threw",
        () -> expiries.get() >= 3,
        Duration.ofSeconds(30));
  }

  @Test
  void aNewAggregatorAfterACrashMidStreamConvergesAndSweepsOrphans() throws Exception {
    var scenario = new Scenario(21, 3, 4);
    AggregatorController first = controller(client, null).start();
    // producers keep writing while the aggregator dies
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (Subject s : scenario.subjects) {
      writes.add(publisher.publish(scenario.evaluate("admission", s)));
      if (writes.size() == scenario.subjects.size() / 2) {
        Await.until("the first aggregates are written", () -> !Scenario.observed(client).isEmpty());
        first.close();
      }
    }
    // generous: closing an informer mid-stream can stall kubernetes-server-mock's single event
    // loop for 30 s (its watch listener awaits a write the blocked loop would make); a bound only
    CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
    // while no aggregator runs: a subject is deleted and an owned aggregate is left behind
    scenario.garbageCollect(client, scenario.subjects.get(0));
    client.resource(ReportCodec.encode(orphan())).create();

    controller(client, null).start();

    scenario.awaitConverged(client);
    assertThat(Scenario.observed(client))
        .extracting(AggregateReport::ref)
        .doesNotContain(orphan().ref());
  }

  @Test
  void whenTheLeaderStopsTheOtherReplicaTakesOverAndConverges() throws Exception {
    var scenario = new Scenario(22, 2, 3);
    KubernetesClient otherClient = MockCluster.client(server);
    fixture.closeLater(MockCluster.closing(otherClient));
    // the new leader's informers list, then watch; a subject deleted in between is never told to
    // them by the mock server, which resumes a watch without the events it missed (a real API
    // server replays them from the list's resourceVersion). The periodic re-list is the net for
    // exactly that, as in production, so it runs here too.
    Duration resync = Duration.ofMillis(500);
    AggregatorController a = controller(client, election("replica-a"), resync).start();
    AggregatorController b = controller(otherClient, election("replica-b"), resync).start();
    Await.until("one replica leads", () -> a.isLeading() || b.isLeading());
    scenario.publishAll(publisher, "admission");
    scenario.awaitConverged(client);
    assertThat(a.isLeading() && b.isLeading()).as("never two leaders").isFalse();

    AggregatorController leader = a.isLeading() ? a : b;
    AggregatorController follower = leader == a ? b : a;
    leader.close();
    Await.until("the other replica takes over", follower::isLeading);

    scenario.publishAll(publisher, "background");
    scenario.garbageCollect(client, scenario.subjects.get(2));
    scenario.awaitConverged(client);
  }

  private static LeaderElectionSettings election(String identity) {
    return new LeaderElectionSettings(
        "default",
        "tally-aggregator",
        identity,
        Duration.ofSeconds(3),
        Duration.ofSeconds(2),
        Duration.ofMillis(200));
  }
}
