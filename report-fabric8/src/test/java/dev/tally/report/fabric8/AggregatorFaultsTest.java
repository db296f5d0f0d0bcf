package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Faults injected with stubs on the mock API server: each converges to the right aggregates with
 * nothing lost and nothing duplicated (the observed aggregates equal a batch rebuild exactly).
 */
@EnableKubernetesMockClient(crud = true)
class AggregatorFaultsTest {
  private static final String POLICY_REPORTS = "/apis/wgpolicyk8s.io/v1alpha2/namespaces/";

  KubernetesMockServer server;
  KubernetesClient client;
  private final CountingMetrics metrics = new CountingMetrics();
  private final RecordingSleeper sleeper = new RecordingSleeper();
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

  private AggregatorController start() {
    return start(client, Duration.ZERO);
  }

  private AggregatorController start(KubernetesClient kubernetes, Duration resyncPeriod) {
    return fixture.started(
        fixture
            .controller(kubernetes, Scenario::newAggregator)
            .sleeper(sleeper)
            .metrics(metrics)
            .resyncPeriod(resyncPeriod));
  }

  private static Status status(int code, String reason, Integer retryAfter) {
    var b = new StatusBuilder().withCode(code).withReason(reason).withMessage(reason);
    if (retryAfter != null) {
      b.withNewDetails().withRetryAfterSeconds(retryAfter).endDetails();
    }
    return b.build();
  }

  private static ReportRef aggregateOf(String namespace) {
    return new ReportRef(
        dev.tally.report.api.ReportKind.POLICY_REPORT, namespace, "tally-namespace-all");
  }

  private static String path(ReportRef ref) {
    return POLICY_REPORTS + ref.namespace() + "/policyreports/" + ref.name();
  }

  /** Publishes a new evaluation of every subject in one namespace. */
  private void churn(Scenario scenario, String namespace) throws Exception {
    for (Subject s : scenario.subjects) {
      if (s.namespace().equals(namespace)) {
        publisher.publish(scenario.evaluate("background", s)).get(90, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void conflictOnUpdateIsRereadAndRediffed() throws Exception {
    var scenario = new Scenario(11, 2, 3);
    start();
    scenario.publishAll(publisher, "admission");
    scenario.awaitConverged(client);
    assertThat(Scenario.observed(client))
        .extracting(AggregateReport::ref)
        .contains(aggregateOf("team-0"));

    server
        .expect()
        .put()
        .withPath(path(aggregateOf("team-0")))
        .andReturn(409, status(409, "Conflict", null))
        .once();
    churn(scenario, "team-0");

    scenario.awaitConverged(client);
    assertThat(metrics.conflicts).isPositive();
    assertThat(metrics.rereads).as("the re-read after the conflict").isPositive();
  }

  /**
   * A conflict on one namespace's aggregate re-reads that object (one GET) and re-diffs it, not
   * every aggregate of the cluster (a LIST): a namespace whose aggregates keep conflicting cannot
   * make the controller list everyone's.
   */
  @Test
  void aConflictRereadsOnlyTheConflictingObject() throws Exception {
    var scenario = new Scenario(15, 3, 3);
    start();
    scenario.publishAll(publisher, "admission");
    scenario.awaitConverged(client);
    int fullResyncs = metrics.resyncs;
    MockCluster.drainByMethod(server);

    server
        .expect()
        .put()
        .withPath(path(aggregateOf("team-0")))
        .andReturn(409, status(409, "Conflict", null))
        .once();
    churn(scenario, "team-0");
    scenario.awaitConverged(client);

    assertThat(metrics.conflicts).isPositive();
    assertThat(metrics.rereads).as("the conflicting object re-read").isPositive();
    assertThat(metrics.resyncs)
        .as("no full resync, so no LIST of the aggregates")
        .isEqualTo(fullResyncs);
    List<String> gets = new java.util.ArrayList<>();
    io.fabric8.mockwebserver.http.RecordedRequest r;
    while ((r = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
      if (r.getMethod().equals("GET")) {
        gets.add(r.getPath());
      }
    }
    assertThat(gets).anySatisfy(g -> assertThat(g).startsWith(path(aggregateOf("team-0"))));
  }

  /**
   * While the LIST of the aggregates fails, a full resync is tried at most once per {@code
   * minResyncInterval}: the flushes meanwhile do not each start one (before, every flush while a
   * resync was due LISTed every aggregate again, with its retries).
   */
  @Test
  void fullResyncsAreRateLimitedWhileTheyFail() throws Exception {
    var scenario = new Scenario(16, 2, 3);
    AggregatorController controller =
        fixture.started(
            fixture
                .controller(client, Scenario::newAggregator)
                .sleeper(sleeper)
                .metrics(metrics)
                .resyncPeriod(Duration.ZERO)
                .minResyncInterval(Duration.ofHours(1)));
    scenario.publishAll(publisher, "admission");
    scenario.awaitConverged(client);

    server
        .expect()
        .get()
        .withPath(
            "/apis/wgpolicyk8s.io/v1alpha2/policyreports?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dtally&limit=500")
        .andReturn(500, status(500, "InternalError", null))
        .always();
    MockCluster.drainByMethod(server);
    int resyncs = metrics.resyncs;
    controller.resyncNow().get(30, TimeUnit.SECONDS); // fails: a resync is due
    assertThat(metrics.resyncs).as("the LIST failed").isEqualTo(resyncs);
    int afterFirst = lists();
    assertThat(afterFirst).as("the failed resync's LIST, with its retries").isPositive();

    // changes keep coming, and with them flushes: none starts another LIST
    for (int round = 0; round < 3; round++) {
      churn(scenario, "team-0");
      controller.flushNow().get(30, TimeUnit.SECONDS);
    }
    assertThat(lists()).as("no LIST before the interval has passed").isZero();
  }

  /** How many LISTs of the aggregates were recorded since the last call. */
  private int lists() {
    int n = 0;
    try {
      io.fabric8.mockwebserver.http.RecordedRequest r;
      while ((r = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
        if (r.getMethod().equals("GET")
            && r.getPath().startsWith("/apis/wgpolicyk8s.io/v1alpha2/policyreports?")) {
          n++;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return n;
  }

  @Test
  void tooManyRequestsIsRetriedAfterRetryAfter() throws Exception {
    var scenario = new Scenario(12, 2, 3);
    server
        .expect()
        .post()
        .withPath(POLICY_REPORTS + "team-1/policyreports")
        .andReturn(429, status(429, "TooManyRequests", 7))
        .once();
    start();
    scenario.publishAll(publisher, "admission");

    scenario.awaitConverged(client);
    assertThat(sleeper.sleeps)
        .anySatisfy(d -> assertThat(d).isGreaterThanOrEqualTo(Duration.ofSeconds(7)));
    assertThat(metrics.retries).isPositive();
  }

  @Test
  void persistentServerErrorsEndInAResyncThatConverges() throws Exception {
    var scenario = new Scenario(13, 2, 3);
    start();
    scenario.publishAll(publisher, "admission");
    scenario.awaitConverged(client);

    // more 500s than one write's retries: the write fails, the controller re-reads and writes again
    server
        .expect()
        .put()
        .withPath(path(aggregateOf("team-1")))
        .andReturn(500, status(500, "InternalError", null))
        .times(5);
    churn(scenario, "team-1");

    scenario.awaitConverged(client);
    assertThat(metrics.retries).isGreaterThanOrEqualTo(3);
  }

  @Test
  void aStaleViewOfTheAggregatesIsRepaired() throws Exception {
    var scenario = new Scenario(14, 2, 3);
    start();
    scenario.publishAll(publisher, "admission");
    scenario.awaitConverged(client);

    // someone edits one owned aggregate and deletes another behind the controller's back
    var edited =
        client
            .resources(PolicyReportResource.class)
            .inNamespace("team-0")
            .withName("tally-namespace-all")
            .get();
    edited.setResults(List.of());
    client.resource(edited).update();
    client
        .resources(PolicyReportResource.class)
        .inNamespace("team-1")
        .withName("tally-namespace-all")
        .delete();
    Await.until(
        "the deletion is visible",
        () ->
            client
                    .resources(PolicyReportResource.class)
                    .inNamespace("team-1")
                    .withName("tally-namespace-all")
                    .get()
                == null);

    churn(scenario, "team-0");
    churn(scenario, "team-1");

    scenario.awaitConverged(client);
    assertThat(metrics.conflicts).isPositive();
  }

  @Test
  void aDroppedWatchAndTheStaleInformerItLeavesConverge() throws Exception {
    var proxy = new ChaosProxy(server.getPort());
    fixture.closeLater(proxy);
    // the controller talks through a proxy that can cut its connections; producers do not
    KubernetesClient viaProxy =
        MockCluster.client(
            server,
            client
                .getConfiguration()
                .getMasterUrl()
                .replace(":" + server.getPort(), ":" + proxy.port()));
    fixture.closeLater(MockCluster.closing(viaProxy));
    var scenario = new Scenario(15, 2, 3);
    // the periodic re-list is what repairs an informer that missed a deletion
    start(viaProxy, Duration.ofMillis(300));
    scenario.publishAll(publisher, "admission");
    scenario.awaitConverged(client);

    // the informers' watches die while producers write and a subject is deleted; the mock server
    // resumes a watch by replaying ADDED for what exists, so the deletion never reaches the
    // informer: its cache goes stale
    proxy.dropAll();
    scenario.publishAll(publisher, "background");
    Subject gone = scenario.subjects.get(0);
    scenario.garbageCollect(client, gone);

    scenario.awaitConverged(client);
    assertThat(Scenario.observed(client))
        .flatExtracting(AggregateReport::results)
        .flatExtracting(dev.tally.report.api.Result::resources)
        .doesNotContain(gone);
  }
}
