package dev.tally.report.audit.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.PartialReport;
import dev.tally.report.audit.AuditBudget;
import dev.tally.report.audit.UnitBackoff;
import dev.tally.report.audit.UnitState;
import dev.tally.report.audit.UnitStatus;
import dev.tally.report.fabric8.MockCluster;
import dev.tally.report.fabric8.VirtualTime;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class DistributedAuditTest {
  private static final AuditBudget BUDGET = new AuditBudget(5, 6);
  private static final Duration LEASE = Duration.ofSeconds(10);

  KubernetesMockServer server;
  KubernetesClient client;
  private final VirtualTime time = new VirtualTime(Instant.parse("2026-01-01T00:00:05Z"));
  private final List<PartialReportPublisher> publishers = new ArrayList<>();
  private int objects;

  @BeforeEach
  void setUp() {
    client = MockCluster.client(server);
    objects = AuditCluster.generate(client);
  }

  @AfterEach
  void tearDown() {
    publishers.forEach(PartialReportPublisher::close);
    MockCluster.close(client);
  }

  private AuditMember member(String group, String id, AuditEvaluator evaluator) {
    var publisher =
        PartialReportPublisher.builder(client)
            .budget(ApiBudget.of(10_000, 10_000))
            .clock(time)
            .build();
    publishers.add(publisher);
    return AuditMember.builder(client)
        .group(group)
        .member(id)
        .namespace("tally")
        .targets(AuditCluster.TARGETS)
        .policies(Set.of(AuditCluster.POLICY))
        .evaluator(evaluator)
        .publisher(publisher)
        .groupBudget(BUDGET)
        .interval(Duration.ofHours(1))
        .leaseDuration(LEASE)
        .clock(time)
        .nanoTicker(time::nanos)
        .sleeper(time)
        .unitBackoff(new UnitBackoff(Duration.ofSeconds(1), Duration.ofSeconds(4)))
        .build();
  }

  private AuditMember member(String group, String id) {
    return member(group, id, AuditCluster::evaluate);
  }

  /** Ticks every member in turn, a virtual second apart, until all see the run complete. */
  private static int runToCompletion(VirtualTime time, List<AuditMember> members) {
    return runToCompletion(time, members, Duration.ofSeconds(1));
  }

  private static int runToCompletion(VirtualTime time, List<AuditMember> members, Duration step) {
    for (int round = 1; round <= 2000; round++) {
      for (AuditMember m : members) {
        m.tick();
      }
      if (members.stream().allMatch(AuditMember::runComplete)) {
        return round;
      }
      time.advance(step);
    }
    throw new AssertionError("the run did not complete in 2000 rounds");
  }

  private List<AggregateReport> soloAggregates() {
    AuditCluster.deleteAuditState(client);
    AuditMember solo = member("solo", "only");
    runToCompletion(time, List.of(solo));
    return AuditCluster.aggregates(AuditCluster.auditPartials(client));
  }

  @Test
  void threeMembersCompleteTheRunAndAggregateLikeOne() {
    List<AuditMember> members = List.of(member("g", "m-a"), member("g", "m-b"), member("g", "m-c"));
    // everyone joins before the run is planned, as replicas of one Deployment would
    members.forEach(AuditMember::tick);
    runToCompletion(time, members);

    var ledger = members.get(0).ledger();
    assertThat(members).allSatisfy(m -> assertThat(m.runId()).isEqualTo(members.get(0).runId()));
    assertThat(ledger.statuses().values()).allMatch(UnitStatus::isDone);
    Map<String, Long> byMember =
        ledger.statuses().values().stream()
            .collect(Collectors.groupingBy(UnitStatus::member, Collectors.counting()));
    assertThat(byMember).as("every member did a share").containsOnlyKeys("m-a", "m-b", "m-c");
    assertThat(ledger.statuses().values().stream().mapToLong(UnitStatus::objects).sum())
        .isEqualTo(objects);

    List<PartialReport> partials = AuditCluster.auditPartials(client);
    assertThat(partials).hasSize(objects);
    assertThat(partials.stream().map(e -> e.subject().uid()).distinct()).hasSize(objects);
    List<AggregateReport> distributed = AuditCluster.aggregates(partials);
    assertThat(distributed).isNotEmpty();

    assertThat(soloAggregates()).isEqualTo(distributed);
  }

  @Test
  void aMemberKilledMidUnitLosesNothingAndDuplicatesNothing() {
    int[] evaluated = {0};
    AuditEvaluator dying =
        object -> {
          if (++evaluated[0] > 12) {
            throw new MemberKilled();
          }
          return AuditCluster.evaluate(object);
        };
    AuditMember a = member("g", "m-a");
    AuditMember b = member("g", "m-b", dying);
    AuditMember c = member("g", "m-c");
    List<AuditMember> all = List.of(a, b, c);
    all.forEach(AuditMember::tick);
    List<AuditMember> running = new ArrayList<>(all);
    boolean killed = false;
    for (int round = 0; round < 500 && !killed; round++) {
      for (AuditMember m : List.copyOf(running)) {
        try {
          m.tick();
        } catch (MemberKilled e) {
          running.remove(m); // its renewals and its worker stop here, mid-unit
          killed = true;
        }
      }
      time.advance(Duration.ofSeconds(1));
    }
    assertThat(killed).as("m-b died mid-unit").isTrue();
    a.tick(); // reads the ledger as m-b left it: its lease has not expired yet
    var atDeath = a.ledger();
    assertThat(atDeath.statuses().values())
        .as("m-b left a unit pending")
        .anyMatch(s -> s.member().equals("m-b") && s.state() == UnitState.PENDING);

    runToCompletion(time, running);

    var ledger = a.ledger();
    assertThat(ledger.statuses().values()).allMatch(UnitStatus::isDone);
    assertThat(ledger.statuses().values().stream().mapToLong(UnitStatus::objects).sum())
        .as("no object lost")
        .isEqualTo(objects);
    List<PartialReport> partials = AuditCluster.auditPartials(client);
    assertThat(partials)
        .as("one partial report per object: the unit taken over rewrote what m-b had written")
        .hasSize(objects)
        .allMatch(e -> e.producer().equals("audit/g"));
    List<AggregateReport> aggregates = AuditCluster.aggregates(partials);
    long results = aggregates.stream().mapToLong(r -> r.results().size()).sum();
    assertThat(results).as("one result per object, none duplicated").isEqualTo(objects);
    assertThat(soloAggregates()).isEqualTo(aggregates);
  }

  @Test
  void requestsStayWithinTheGroupBudget() throws Exception {
    drainRequests();
    List<AuditMember> members = List.of(member("g", "m-a"), member("g", "m-b"), member("g", "m-c"));
    Instant start = time.instant();
    members.forEach(AuditMember::tick);
    // rounds a tenth of a second apart: the budget, not the test, sets the pace
    runToCompletion(time, members, Duration.ofMillis(100));
    Duration elapsed = Duration.between(start, time.instant());
    Map<String, Integer> byKind = new HashMap<>();
    int auditRequests = 0;
    for (RecordedRequest r : drainRequests()) {
      if (r.getPath().startsWith("/apis/tally.dev/")) {
        byKind.merge("partial reports (publisher budget)", 1, Integer::sum);
      } else {
        auditRequests++;
      }
    }
    // burst + qps x elapsed, plus the bursts of the first round, when the members joined one by
    // one and each started with a full bucket of the share it saw (6, 3 and 2 of 6)
    long bound = BUDGET.maxRequestsIn(elapsed.toNanos()) + 3 + 2;
    assertThat(auditRequests).isPositive().isLessThanOrEqualTo((int) bound);
    assertThat(time.sleeps).as("the budget made members wait").isNotEmpty();
    assertThat(members)
        .allSatisfy(m -> assertThat(m.budgetShare().qps()).isEqualTo(BUDGET.qps() / 3));
  }

  private List<RecordedRequest> drainRequests() throws InterruptedException {
    List<RecordedRequest> all = new ArrayList<>();
    RecordedRequest r;
    while ((r = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
      all.add(r);
    }
    return all;
  }

  /** Stands for the process dying: not an exception any layer catches. */
  static final class MemberKilled extends Error {
    private static final long serialVersionUID = 1L;
  }
}
