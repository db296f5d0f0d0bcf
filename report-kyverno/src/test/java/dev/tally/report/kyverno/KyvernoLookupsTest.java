package dev.tally.report.kyverno;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.ControllerFixture;
import dev.tally.report.fabric8.CountingMetrics;
import dev.tally.report.fabric8.MockCluster;
import dev.tally.report.fabric8.RealServer;
import dev.tally.report.fabric8.VirtualTime;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.input.InputContext;
import dev.tally.report.fabric8.input.ResourceLookups;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.merge.publish.ClockRule;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lookups Kyverno mode makes of the resources that intermediate reports name (issue 19, "a
 * confused deputy" and "nothing freezes silently"): metadata only, only the adoption kinds, and a
 * failed lookup is never "not found": it is counted, logged and asked again after a backoff. Driven
 * directly on a mock server that answers each request as the test says.
 */
@EnableKubernetesMockClient
class KyvernoLookupsTest {
  private static final String NS = "team";
  private static final String POD_PATH = "/api/v1/namespaces/team/pods/web";
  private static final String REPORT_PATH =
      "/apis/reports.kyverno.io/v1/namespaces/team/ephemeralreports/req-1-r";

  KubernetesMockServer server;
  private KubernetesClient client;
  private final CountingMetrics metrics = new CountingMetrics();
  private final VirtualTime time = new VirtualTime(Instant.ofEpochSecond(1_900_000_000L));

  @BeforeEach
  void setUp() {
    client = MockCluster.client(server);
  }

  @AfterEach
  void tearDown() {
    MockCluster.close(client);
  }

  private IntermediateReports reports(KyvernoInput input) {
    ApiCalls calls =
        new ApiCalls(
            ApiBudget.of(1000, 1000),
            ControllerFixture.FAST_RETRIES,
            new Random(1),
            d -> {},
            metrics);
    return new IntermediateReports(
        input,
        new InputContext(
            client,
            calls,
            metrics,
            time,
            ClockRule.allowing(Duration.ofDays(36_500)),
            () -> Timestamp.ofSeconds(time.instant().getEpochSecond())));
  }

  private static KyvernoInput input() {
    return KyvernoInput.deleteAfterMerge()
        .withAdoptionGrace(Duration.ofMinutes(2))
        .withAdoptionRetry(Duration.ofSeconds(10));
  }

  @Test
  void aRefusedAdoptionGetIsNotNotFoundTheReportWaitsAndTheFailureIsCountedAndRetried()
      throws Exception {
    server.expect().get().withPath(POD_PATH).andReturn(403, forbidden()).always();
    server
        .expect()
        .delete()
        .withPath(REPORT_PATH)
        .andReturn(200, new StatusBuilder().build())
        .always();
    IntermediateReports reports = reports(input());
    GenericKubernetesResource report = admission("Pod", "pods.v1", "web");
    reports.await("EphemeralReport/team/req-1-r", report, Subject.of("v1", "Pod", NS, "web", ""));
    List<HasMetadata> adopted = new ArrayList<>();

    reports.retry(adopted::add);
    time.advance(Duration.ofMinutes(3)); // past the grace
    reports.retry(adopted::add);

    List<RecordedRequest> requests = requests();
    assertThat(requests).extracting(RecordedRequest::getMethod).doesNotContain("DELETE");
    assertThat(metrics.expired).as("not expired as if it never appeared").isZero();
    assertThat(reports.waitingCount()).isEqualTo(1);
    assertThat(metrics.lookupsFailed).containsEntry(TallyMetrics.Lookup.ADOPTION, 2);
    assertThat(requests).filteredOn(r -> r.getPath().equals(POD_PATH)).hasSize(2);

    // backing off: asked again only once the wait (10 s, then 20 s) has passed
    reports.retry(adopted::add);
    assertThat(requests()).isEmpty();
    time.advance(Duration.ofSeconds(21));
    reports.retry(adopted::add);
    assertThat(requests()).extracting(RecordedRequest::getPath).containsExactly(POD_PATH);
    assertThat(adopted).isEmpty();
  }

  @Test
  void adoptionReadsTheMetadataOnly() throws Exception {
    server
        .expect()
        .get()
        .withPath(POD_PATH)
        .andReturn(
            200,
            Map.of(
                "apiVersion", "meta.k8s.io/v1",
                "kind", "PartialObjectMetadata",
                "metadata", Map.of("name", "web", "namespace", NS, "uid", "u-1")))
        .always();
    IntermediateReports reports = reports(input());
    reports.await(
        "EphemeralReport/team/req-1-r",
        admission("Pod", "pods.v1", "web"),
        Subject.of("v1", "Pod", NS, "web", ""));
    List<HasMetadata> adopted = new ArrayList<>();

    reports.retry(adopted::add);

    assertThat(adopted).hasSize(1);
    assertThat(adopted.get(0).getMetadata().getLabels())
        .containsEntry("audit.kyverno.io/resource.uid", "u-1");
    List<RecordedRequest> requests = requests();
    assertThat(requests).extracting(RecordedRequest::getPath).containsExactly(POD_PATH);
    assertThat(requests.get(0).getHeader("Accept")).isEqualTo(ResourceLookups.METADATA_ONLY);
  }

  @Test
  void aKindOutsideTheAdoptionKindsIsNeverLookedUpAndExpiresCounted() throws Exception {
    server
        .expect()
        .get()
        .withPath("/api/v1/namespaces/team/secrets/db")
        .andReturn(
            200,
            Map.of(
                "apiVersion", "v1",
                "kind", "Secret",
                "metadata", Map.of("name", "db", "namespace", NS, "uid", "s-1")))
        .always();
    server
        .expect()
        .delete()
        .withPath(REPORT_PATH)
        .andReturn(200, new StatusBuilder().build())
        .always();
    IntermediateReports reports = reports(input());
    reports.await(
        "EphemeralReport/team/req-1-r",
        admission("Secret", "secrets.v1", "db"),
        Subject.of("v1", "Secret", NS, "db", ""));
    List<HasMetadata> adopted = new ArrayList<>();

    reports.retry(adopted::add);
    time.advance(Duration.ofSeconds(30));
    reports.retry(adopted::add);
    assertThat(requests()).as("no request about the Secret").isEmpty();
    assertThat(metrics.lookupsSkipped).containsEntry(TallyMetrics.Lookup.ADOPTION, 1);

    time.advance(Duration.ofMinutes(2));
    reports.retry(adopted::add);
    assertThat(adopted).isEmpty();
    assertThat(requests())
        .extracting(r -> r.getMethod() + " " + r.getPath())
        .containsExactly("DELETE " + REPORT_PATH);
    assertThat(metrics.expired).isEqualTo(1);
  }

  /**
   * A report about a kind the server does not serve (discovery answers without it) names no object
   * that can exist: its grace runs out and it is deleted, as for an object not found. Before, that
   * was a failed lookup, which never lets the grace run out: the report was held whole for ever.
   */
  @Test
  void aKindTheServerDoesNotServeExpiresAfterTheGrace() throws Exception {
    server.expect().get().withPath("/api/v1").andReturn(200, coreDiscovery()).always();
    server
        .expect()
        .delete()
        .withPath(REPORT_PATH)
        .andReturn(200, new StatusBuilder().build())
        .always();
    IntermediateReports reports = reports(input());
    GenericKubernetesResource report = admission("Widget", "", "w");
    report.getMetadata().getLabels().remove(KyvernoCodec.GVR_LABEL);
    reports.await("EphemeralReport/team/req-1-r", report, Subject.of("v1", "Widget", NS, "w", ""));
    List<HasMetadata> adopted = new ArrayList<>();

    reports.retry(adopted::add);
    assertThat(metrics.lookupsFailed)
        .as("not a failure")
        .doesNotContainKey(TallyMetrics.Lookup.ADOPTION);
    time.advance(Duration.ofMinutes(3)); // past the grace
    reports.retry(adopted::add);

    assertThat(adopted).isEmpty();
    assertThat(requests())
        .extracting(r -> r.getMethod() + " " + r.getPath())
        .contains("DELETE " + REPORT_PATH);
    assertThat(metrics.expired).isEqualTo(1);
    assertThat(reports.waitingCount()).isZero();
  }

  @Test
  void aFailedGoneCheckIsCountedAndAskedAgainAfterABackoffNotForgotten() throws Exception {
    server.expect().get().withPath("/api/v1").andReturn(200, coreDiscovery()).always();
    server.expect().get().withPath(POD_PATH).andReturn(403, forbidden()).once();
    server
        .expect()
        .get()
        .withPath(POD_PATH)
        .andReturn(
            404,
            new StatusBuilder()
                .withStatus("Failure")
                .withReason("NotFound")
                .withCode(404)
                .withMessage("pods \"web\" not found")
                .withNewDetails()
                .withName("web")
                .withKind("pods")
                .endDetails()
                .build())
        .always();
    IntermediateReports reports = reports(input());
    List<AggregateReport> owned = ownedReportAbout(Subject.of("v1", "Pod", NS, "web", "u-1"));
    assertThat(reports.observe(owned).seeds()).isEqualTo(owned);

    // its report vanished; reading the pod is refused
    IntermediateReports.Listed refused = reports.observe(List.of());
    assertThat(refused.gone()).isEmpty();
    assertThat(metrics.lookupsFailed).containsEntry(TallyMetrics.Lookup.GONE_CHECK, 1);
    assertThat(requests()).extracting(RecordedRequest::getPath).contains(POD_PATH);

    // the next resync comes at once: still backing off, no request
    assertThat(reports.observe(List.of()).gone()).isEmpty();
    assertThat(requests()).isEmpty();

    // later it is asked again, and the server says the pod is gone
    time.advance(Duration.ofMinutes(1));
    assertThat(reports.observe(List.of()).gone()).extracting(Subject::uid).containsExactly("u-1");
    assertThat(requests()).extracting(RecordedRequest::getPath).containsExactly(POD_PATH);
    assertThat(requests.getHeader("Accept")).isEqualTo(ResourceLookups.METADATA_ONLY);
  }

  /**
   * Many reports of one namespace vanishing at once (a tenant's delete-collection, a Deployment
   * scaled down) are checked by one LIST of their kind there, metadata only, not a GET each: the
   * pods the LIST does not hold, or holds with another uid, are gone. Before, 12 GETs.
   */
  @Test
  void manyVanishedReportsOfOneNamespaceAreCheckedByOneList() throws Exception {
    server.expect().get().withPath("/api/v1").andReturn(200, coreDiscovery()).always();
    Map<String, Object> page =
        Map.of(
            "kind",
            "PartialObjectMetadataList",
            "apiVersion",
            "meta.k8s.io/v1",
            "metadata",
            Map.of(),
            "items",
            List.of(
                Map.of("metadata", Map.of("name", "web-0", "uid", "u-0")),
                Map.of("metadata", Map.of("name", "web-1", "uid", "u-1")),
                Map.of("metadata", Map.of("name", "web-2", "uid", "another"))));
    server
        .expect()
        .get()
        .withPath("/api/v1/namespaces/team/pods?limit=" + ResourceLookups.LIST_PAGE)
        .andReturn(200, page)
        .once();
    IntermediateReports reports = reports(input());
    List<Subject> pods = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      pods.add(Subject.of("v1", "Pod", NS, "web-" + i, "u-" + i));
    }
    List<AggregateReport> owned = ownedReportsAbout(pods);
    assertThat(reports.observe(owned).seeds()).hasSize(12);
    requests();

    List<Subject> gone = reports.observe(List.of()).gone();
    assertThat(gone)
        .extracting(Subject::name)
        .as("not listed, or listed with another uid")
        .containsExactlyInAnyOrder(
            "web-2", "web-3", "web-4", "web-5", "web-6", "web-7", "web-8", "web-9", "web-10",
            "web-11");
    List<RecordedRequest> sent = requests();
    assertThat(sent)
        .extracting(RecordedRequest::getPath)
        .filteredOn(path -> path.startsWith("/api/v1/namespaces"))
        .containsExactly("/api/v1/namespaces/team/pods?limit=" + ResourceLookups.LIST_PAGE);
    assertThat(sent.get(sent.size() - 1).getHeader("Accept"))
        .isEqualTo(ResourceLookups.METADATA_LIST);
  }

  private RecordedRequest requests;

  /** The requests since the last call. */
  private List<RecordedRequest> requests() throws InterruptedException {
    List<RecordedRequest> out = new ArrayList<>();
    for (RecordedRequest r = server.takeRequest(0, TimeUnit.SECONDS);
        r != null;
        r = server.takeRequest(0, TimeUnit.SECONDS)) {
      out.add(r);
      if (r.getPath().equals(POD_PATH)) {
        requests = r;
      }
    }
    return out;
  }

  private static List<AggregateReport> ownedReportsAbout(List<Subject> subjects) {
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build();
    for (Subject subject : subjects) {
      aggregator.apply(
          PartialReport.builder()
              .producer("kyverno")
              .subject(subject)
              .results(List.of(RealServer.fail("require-labels")))
              .observedAt(Timestamp.ofSeconds(1_900_000_000L))
              .build());
    }
    return aggregator.aggregates();
  }

  private static List<AggregateReport> ownedReportAbout(Subject subject) {
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build();
    aggregator.apply(
        PartialReport.builder()
            .producer("kyverno")
            .subject(subject)
            .results(List.of(RealServer.fail("require-labels")))
            .observedAt(Timestamp.ofSeconds(1_900_000_000L))
            .build());
    return aggregator.aggregates();
  }

  private static Map<String, Object> coreDiscovery() {
    return Map.of(
        "kind", "APIResourceList",
        "groupVersion", "v1",
        "resources",
            List.of(
                Map.of(
                    "name",
                    "pods",
                    "kind",
                    "Pod",
                    "namespaced",
                    true,
                    "singularName",
                    "",
                    "verbs",
                    List.of("get")),
                Map.of(
                    "name",
                    "pods/exec",
                    "kind",
                    "PodExecOptions",
                    "namespaced",
                    true,
                    "singularName",
                    "",
                    "verbs",
                    List.of("create"))));
  }

  private static Status forbidden() {
    return new StatusBuilder()
        .withStatus("Failure")
        .withReason("Forbidden")
        .withCode(403)
        .withMessage(
            "pods \"web\" is forbidden: User \"system:serviceaccount:kyverno:tally\" cannot get")
        .build();
  }

  /** An admission report about {@code kind} {@code name} in team, without a uid yet. */
  private static GenericKubernetesResource admission(String kind, String gvr, String name) {
    GenericKubernetesResource report =
        RealKyvernoTest.admissionReport(
            NS,
            "req-1",
            kind,
            "",
            "v1",
            name,
            null,
            1_900_000_000L,
            Map.of(
                "require-labels",
                List.of(
                    RealKyvernoTest.result("require-labels", "check", "fail", 1_900_000_000L))));
    report.getMetadata().getLabels().put(KyvernoCodec.GVR_LABEL, gvr);
    report.getMetadata().setResourceVersion("7");
    return report;
  }
}
