package dev.tally.report.audit.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.WireNames;
import dev.tally.report.audit.UnitBackoff;
import dev.tally.report.audit.UnitState;
import dev.tally.report.audit.UnitStatus;
import dev.tally.report.fabric8.MockCluster;
import dev.tally.report.fabric8.VirtualTime;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PartialReportResource;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapListBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Faults in the middle of a unit: an expired continue token, throttling, a LIST that keeps failing.
 */
@EnableKubernetesMockClient(crud = true)
class UnitFaultsTest {
  private static final String FIRST_PAGE = "/api/v1/namespaces/app-0/configmaps?limit=50";
  private static final String NEXT_PAGE =
      "/api/v1/namespaces/app-0/configmaps?continue=tok-1&limit=50";

  KubernetesMockServer server;
  KubernetesClient client;
  private final VirtualTime time = new VirtualTime(Instant.parse("2026-01-01T00:00:05Z"));
  private PartialReportPublisher publisher;
  private AuditMember member;
  private List<ConfigMap> app0;

  @BeforeEach
  void setUp() {
    client = MockCluster.client(server);
    AuditCluster.generate(client);
    app0 = client.configMaps().inNamespace("app-0").list().getItems();
    publisher =
        PartialReportPublisher.builder(client)
            .budget(ApiBudget.of(10_000, 10_000))
            .clock(time)
            .build();
    member = member("faults", "solo");
  }

  private AuditMember member(String group, String id) {
    return AuditCluster.soloMember(client, publisher, time, group, id)
        .staleAfterAttempts(2)
        .unitBackoff(new UnitBackoff(Duration.ofSeconds(1), Duration.ofSeconds(2)))
        .build();
  }

  @AfterEach
  void tearDown() {
    publisher.close();
    MockCluster.close(client);
  }

  private void runToCompletion() {
    for (int round = 0; round < 200; round++) {
      if (member.tick() == AuditMember.Step.COMPLETE) {
        return;
      }
      time.advance(Duration.ofSeconds(1));
    }
    throw new AssertionError("the run did not complete");
  }

  private String unitApp0() {
    return "ConfigMap.v1.core_app-0";
  }

  @Test
  void anExpiredContinueTokenRestartsTheUnitFromTheFirstPage() throws Exception {
    server.expect().get().withPath(FIRST_PAGE).andReturn(200, page(0, 10, "tok-1")).once();
    server
        .expect()
        .get()
        .withPath(NEXT_PAGE)
        .andReturn(
            410,
            new StatusBuilder()
                .withCode(410)
                .withReason("Expired")
                .withMessage("The provided continue parameter is too old")
                .build())
        .once();
    drain();
    runToCompletion();

    List<String> lists =
        drain().stream()
            .map(RecordedRequest::getPath)
            .filter(p -> p.contains("app-0/configmaps"))
            .toList();
    assertThat(lists).containsSubsequence(FIRST_PAGE, NEXT_PAGE, FIRST_PAGE);
    UnitStatus status = member.ledger().status(unitApp0()).orElseThrow();
    assertThat(status.state()).isEqualTo(UnitState.DONE);
    assertThat(status.objects()).isEqualTo(40);
    assertThat(partialsIn("app-0")).hasSize(40);
  }

  @Test
  void throttlingMidListBacksOffForRetryAfterAndCompletes() throws Exception {
    server.expect().get().withPath(FIRST_PAGE).andReturn(200, page(0, 15, "tok-1")).once();
    server
        .expect()
        .get()
        .withPath(NEXT_PAGE)
        .andReturn(
            429,
            new StatusBuilder()
                .withCode(429)
                .withReason("TooManyRequests")
                .withNewDetails()
                .withRetryAfterSeconds(7)
                .endDetails()
                .build())
        .once();
    server.expect().get().withPath(NEXT_PAGE).andReturn(200, page(15, 40, null)).once();
    runToCompletion();

    assertThat(time.sleeps).anyMatch(d -> d.compareTo(Duration.ofSeconds(7)) >= 0);
    UnitStatus status = member.ledger().status(unitApp0()).orElseThrow();
    assertThat(status.state()).isEqualTo(UnitState.DONE);
    assertThat(status.attempts()).as("backed off within the attempt, not failed").isEqualTo(1);
    assertThat(status.objects()).isEqualTo(40);
    assertThat(partialsIn("app-0")).hasSize(40);
  }

  @Test
  void aUnitThatCannotBeAuditedKeepsItsResultsMarkedStaleAndIsRetried() {
    runToCompletion();
    assertThat(partialsIn("app-2")).hasSize(25).allMatch(p -> !isStale(p));

    // the next interval: app-2 can no longer be listed
    server
        .expect()
        .get()
        .withPath("/api/v1/namespaces/app-2/configmaps?limit=50")
        .andReturn(
            403,
            new StatusBuilder()
                .withCode(403)
                .withReason("Forbidden")
                .withMessage("configmaps is forbidden")
                .build())
        .always();
    time.advance(Duration.ofHours(1));
    for (int round = 0; round < 40; round++) {
      assertThat(member.tick()).isNotEqualTo(AuditMember.Step.COMPLETE);
      time.advance(Duration.ofSeconds(1));
    }

    UnitStatus status = member.ledger().status("ConfigMap.v1.core_app-2").orElseThrow();
    assertThat(status.state()).isEqualTo(UnitState.FAILED);
    assertThat(status.reason()).contains("403");
    assertThat(status.attempts()).as("retried, never skipped").isGreaterThanOrEqualTo(5);
    assertThat(member.runComplete()).isFalse();
    assertThat(partialsIn("app-2"))
        .as("last results kept, marked stale")
        .hasSize(25)
        .allMatch(UnitFaultsTest::isStale)
        .allMatch(
            p ->
                p.getMetadata()
                    .getAnnotations()
                    .get(WireNames.STALE_REASON_ANNOTATION)
                    .contains("403"));
    assertThat(partialsIn("app-0")).noneMatch(UnitFaultsTest::isStale);
  }

  @Test
  void aStaleUnitShowsInTheAggregatesUntilItsNextSuccess() {
    AuditMember others = member("others", "solo");
    for (int round = 0; round < 200 && others.tick() != AuditMember.Step.COMPLETE; round++) {
      time.advance(Duration.ofSeconds(1));
    }
    runToCompletion();
    List<AggregateReport> fresh = AuditCluster.aggregates(AuditCluster.auditPartials(client));
    assertThat(staleResults(fresh)).isEmpty();

    // the next interval: app-2 cannot be listed three times, then it can again
    server
        .expect()
        .get()
        .withPath("/api/v1/namespaces/app-2/configmaps?limit=50")
        .andReturn(
            403,
            new StatusBuilder()
                .withCode(403)
                .withReason("Forbidden")
                .withMessage("configmaps is forbidden")
                .build())
        .times(3);
    time.advance(Duration.ofHours(1));
    for (int round = 0; round < 200; round++) {
      member.tick();
      if (member.ledger().attempts("ConfigMap.v1.core_app-2") >= 2) {
        break;
      }
      time.advance(Duration.ofSeconds(1));
    }
    assertThat(member.ledger().status("ConfigMap.v1.core_app-2").orElseThrow().state())
        .isEqualTo(UnitState.FAILED);

    List<AggregateReport> stale = AuditCluster.aggregates(AuditCluster.auditPartials(client));
    List<Result> marked = staleResults(stale);
    assertThat(marked)
        .as("every result of the unit's 25 objects says it is stale, and why")
        .hasSize(25)
        .allMatch(r -> r.properties().get(WireNames.STALE_PROPERTY).contains("403"))
        .allMatch(r -> r.resources().get(0).namespace().equals("app-2"))
        .allMatch(r -> r.resources().get(0).kind().equals("ConfigMap"));
    assertThat(partialsIn("app-2"))
        .as("the label stays too, on this group's partial reports only")
        .filteredOn(p -> p.getSpec().producer().equals(member.producer()))
        .hasSize(25)
        .allMatch(UnitFaultsTest::isStale);
    assertThat(partialsIn("app-2"))
        .filteredOn(p -> !p.getSpec().producer().equals(member.producer()))
        .as("another group's audit of app-2 is not stale")
        .hasSize(25)
        .noneMatch(UnitFaultsTest::isStale);

    runToCompletion();
    List<AggregateReport> recovered = AuditCluster.aggregates(AuditCluster.auditPartials(client));
    assertThat(staleResults(recovered)).as("the next success clears the mark").isEmpty();
    assertThat(results(recovered)).containsExactlyInAnyOrderElementsOf(results(fresh));
    assertThat(partialsIn("app-2")).noneMatch(UnitFaultsTest::isStale);
  }

  private static List<Result> results(List<AggregateReport> aggregates) {
    return aggregates.stream().flatMap(a -> a.results().stream()).toList();
  }

  private static List<Result> staleResults(List<AggregateReport> aggregates) {
    return results(aggregates).stream()
        .filter(r -> r.properties().containsKey(WireNames.STALE_PROPERTY))
        .toList();
  }

  private static boolean isStale(PartialReportResource p) {
    var labels = p.getMetadata().getLabels();
    return labels != null && "true".equals(labels.get(WireNames.STALE_LABEL));
  }

  private List<PartialReportResource> partialsIn(String namespace) {
    return client.resources(PartialReportResource.class).inNamespace(namespace).list().getItems();
  }

  private Object page(int from, int to, String token) {
    var builder = new ConfigMapListBuilder().withItems(app0.subList(from, to));
    if (token != null) {
      builder
          .withNewMetadata()
          .withContinue(token)
          .withRemainingItemCount((long) app0.size() - to)
          .endMetadata();
    }
    return builder.build();
  }

  private List<RecordedRequest> drain() throws InterruptedException {
    List<RecordedRequest> all = new ArrayList<>();
    RecordedRequest r;
    while ((r = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
      all.add(r);
    }
    return all;
  }
}
