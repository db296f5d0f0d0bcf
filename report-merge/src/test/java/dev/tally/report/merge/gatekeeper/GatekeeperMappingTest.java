package dev.tally.report.merge.gatekeeper;

import static dev.tally.report.merge.gatekeeper.AuditRunTest.ID;
import static dev.tally.report.merge.gatekeeper.AuditRunTest.STARTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.publish.ClockRule;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class GatekeeperMappingTest {
  static final Set<String> BOTH = Set.of("K8sRequiredLabels/owner", "K8sRequiredLabels/team");

  static ExportLine violation(
      String constraintKind,
      String constraint,
      String action,
      List<String> scoped,
      String group,
      String version,
      String kind,
      String namespace,
      String name,
      String message) {
    return new ExportLine(
        ID,
        ExportLine.VIOLATION,
        message,
        "constraints.gatekeeper.sh",
        "v1beta1",
        constraintKind,
        constraint,
        action,
        scoped,
        group,
        version,
        kind,
        namespace,
        name);
  }

  static ExportLine podViolation(String constraint, String pod, String message) {
    return violation(
        "K8sRequiredLabels",
        constraint,
        "deny",
        List.of(),
        "",
        "v1",
        "Pod",
        "team-a",
        pod,
        message);
  }

  static AuditRun.Finished finished(ExportLine... violations) {
    return new AuditRun.Finished(ID, STARTED, 0, List.of(violations));
  }

  static AuditRun.Finished later(int seconds, ExportLine... violations) {
    return new AuditRun.Finished("later", STARTED.plusSeconds(seconds), 0, List.of(violations));
  }

  static ExportLine hpaViolation(String version, String message) {
    return violation(
        "K8sReplicas",
        "max",
        "deny",
        List.of(),
        "autoscaling",
        version,
        "HorizontalPodAutoscaler",
        "team-a",
        "web",
        message);
  }

  /** Every resource exists, its uid {@code uid-<name>}. */
  static Optional<String> byName(Subject s) {
    return Optional.of("uid-" + s.name());
  }

  static ReportAggregator aggregator() {
    return ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
  }

  /** An aggregator holding what {@code run}, confirming both constraints, stated. */
  static ReportAggregator afterFirstRun(AuditRun.Finished run) {
    ReportAggregator aggregator = aggregator();
    apply(
        aggregator,
        GatekeeperMapping.statements(run, List.of(), BOTH, GatekeeperMappingTest::byName));
    return aggregator;
  }

  static void apply(ReportAggregator aggregator, GatekeeperMapping.Statements statements) {
    statements.reports().forEach(aggregator::apply);
    aggregator.flush();
  }

  static List<String> held(ReportAggregator aggregator) {
    return aggregator.aggregates().stream()
        .flatMap(a -> a.results().stream())
        .map(r -> r.resources().get(0).uid() + " " + r.policy() + " " + r.message())
        .sorted()
        .toList();
  }

  static List<String> shown(GatekeeperMapping.Statements s) {
    return s.reports().stream()
        .map(
            p ->
                p.subject().uid()
                    + " "
                    + p.results().size()
                    + " "
                    + p.coverage().stream().map(CoverageKey::policy).toList())
        .toList();
  }

  @Test
  void aViolationIsAFailedResultOfTheConstraintAboutItsResourceUnderTheUidItHasNow() {
    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            finished(
                violation(
                    "K8sAllowedRepos",
                    "prod-repos",
                    "deny",
                    List.of(),
                    "apps",
                    "v1",
                    "Deployment",
                    "team-a",
                    "web",
                    "container <nginx> has an invalid image repo")),
            List.of(),
            Set.of(),
            GatekeeperMappingTest::byName);
    Result expected =
        Result.builder()
            .source("gatekeeper")
            .policy("K8sAllowedRepos/prod-repos")
            .rule("k8sallowedrepos")
            .status(ResultStatus.FAIL)
            .message("container <nginx> has an invalid image repo")
            .properties(Map.of("enforcementAction", "deny"))
            .timestamp(STARTED)
            .build();
    assertThat(s.refused()).isEmpty();
    assertThat(s.reports())
        .containsExactly(
            PartialReport.builder()
                .producer("gatekeeper/audit")
                .subject(Subject.of("apps/v1", "Deployment", "team-a", "web", "uid-web"))
                .coverage(Set.of(CoverageKey.of("gatekeeper", "K8sAllowedRepos/prod-repos")))
                .results(List.of(expected))
                .observedAt(STARTED)
                .build());
  }

  @Test
  void aConstraintThatOnlyWarnsGivesWarnAndEveryOtherActionFail() {
    AuditRun.Finished run =
        finished(
            violation("K8sA", "warns", "warn", List.of(), "", "v1", "Pod", "ns", "p1", "m"),
            violation("K8sA", "dry", "dryrun", List.of(), "", "v1", "Pod", "ns", "p2", "m"),
            violation(
                "K8sA", "scoped-warn", "scoped", List.of("warn"), "", "v1", "Pod", "ns", "p3", "m"),
            violation(
                "K8sA",
                "scoped-deny",
                "scoped",
                List.of("warn", "deny"),
                "",
                "v1",
                "Pod",
                "ns",
                "p4",
                "m"),
            violation(
                "K8sA", "scoped-none", "scoped", List.of(), "", "v1", "Pod", "ns", "p5", "m"));
    List<PartialReport> reports =
        GatekeeperMapping.statements(run, List.of(), Set.of(), GatekeeperMappingTest::byName)
            .reports();
    assertThat(reports)
        .extracting(p -> p.subject().name() + " " + p.results().get(0).status())
        .containsExactly("p1 warn", "p2 fail", "p3 warn", "p4 fail", "p5 fail");
    assertThat(reports.get(3).results().get(0).properties())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("enforcementAction", "scoped", "enforcementActions", "warn,deny"));
  }

  @Test
  void aClusterScopedResourceIsStatedWithoutANamespace() {
    PartialReport p =
        GatekeeperMapping.statements(
                finished(
                    violation(
                        "K8sRequiredLabels",
                        "ns-owner",
                        "deny",
                        List.of(),
                        "",
                        "v1",
                        "Namespace",
                        "",
                        "team-b",
                        "m")),
                List.of(),
                Set.of(),
                GatekeeperMappingTest::byName)
            .reports()
            .get(0);
    assertThat(p.subject()).isEqualTo(Subject.of("v1", "Namespace", "", "team-b", "uid-team-b"));
  }

  @Test
  void aConfirmedConstraintThatAResourceNoLongerViolatesIsRetractedAndAnUnconfirmedOneKept() {
    ReportAggregator aggregator =
        afterFirstRun(
            finished(
                podViolation("owner", "a", "m1"),
                podViolation("team", "a", "m2"),
                podViolation("team", "b", "m3")));
    assertThat(held(aggregator))
        .containsExactly(
            "uid-a K8sRequiredLabels/owner m1",
            "uid-a K8sRequiredLabels/team m2",
            "uid-b K8sRequiredLabels/team m3");

    // a: fixed for "owner", still violates "team"; b: not named. Only "owner" is confirmed: the
    // audit of "team" did not finish, so b's "team" result stays
    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            later(300, podViolation("team", "a", "m4")),
            aggregator.aggregates(),
            Set.of("K8sRequiredLabels/owner"),
            GatekeeperMappingTest::byName);
    assertThat(shown(s))
        .as("a covers its violation and the confirmed constraint it held; b has nothing confirmed")
        .containsExactly("uid-a 1 [K8sRequiredLabels/owner, K8sRequiredLabels/team]");
    apply(aggregator, s);
    assertThat(held(aggregator))
        .containsExactly("uid-a K8sRequiredLabels/team m4", "uid-b K8sRequiredLabels/team m3");

    // the next run confirms both and names nobody: everything is retracted
    apply(
        aggregator,
        GatekeeperMapping.statements(
            later(600), aggregator.aggregates(), BOTH, GatekeeperMappingTest::byName));
    assertThat(held(aggregator)).isEmpty();
  }

  @Test
  void aRunThatConfirmsNothingRetractsNothing() {
    // Gatekeeper writes a finish line even when it could not list its constraints
    ReportAggregator aggregator = afterFirstRun(finished(podViolation("owner", "a", "m1")));
    GatekeeperMapping.Statements empty =
        GatekeeperMapping.statements(
            later(300), aggregator.aggregates(), Set.of(), GatekeeperMappingTest::byName);
    assertThat(empty.reports()).isEmpty();
  }

  @Test
  void aResourceDeletedOrRecreatedUnderItsNameLosesEverythingHeldUnderItsOldUid() {
    ReportAggregator aggregator = aggregator();
    Map<String, String> uids = new HashMap<>(Map.of("a", "uid-a-1", "b", "uid-b-1"));
    Function<Subject, Optional<String>> uidOf = s -> Optional.ofNullable(uids.get(s.name()));
    apply(
        aggregator,
        GatekeeperMapping.statements(
            finished(podViolation("owner", "a", "m1"), podViolation("owner", "b", "m2")),
            List.of(),
            BOTH,
            uidOf));
    uids.put("a", "uid-a-2"); // recreated: a StatefulSet's Pod
    uids.remove("b"); // deleted
    // nothing confirmed, yet the old uids go: those objects are no longer there
    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            later(300, podViolation("owner", "a", "m3")), aggregator.aggregates(), Set.of(), uidOf);
    assertThat(shown(s))
        .containsExactly(
            "uid-a-2 1 [K8sRequiredLabels/owner]",
            "uid-a-1 0 [K8sRequiredLabels/owner]",
            "uid-b-1 0 [K8sRequiredLabels/owner]");
    apply(aggregator, s);
    assertThat(held(aggregator)).containsExactly("uid-a-2 K8sRequiredLabels/owner m3");
  }

  @Test
  void aResourceIsTheSameAcrossTheVersionsGatekeeperExportsItIn() {
    ReportAggregator aggregator = aggregator();
    ExportLine old = hpaViolation("v2beta2", "m1");
    ExportLine now = hpaViolation("v2", "m2");
    apply(
        aggregator,
        GatekeeperMapping.statements(
            finished(old), List.of(), BOTH, GatekeeperMappingTest::byName));
    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            later(300, now),
            aggregator.aggregates(),
            Set.of("K8sReplicas/max"),
            GatekeeperMappingTest::byName);
    assertThat(shown(s)).containsExactly("uid-web 1 [K8sReplicas/max]");
    assertThat(s.reports().get(0).subject().apiVersion()).isEqualTo("autoscaling/v2");
  }

  @Test
  void aRunOlderThanWhatIsHeldIsRefusedWhole() {
    ReportAggregator aggregator = afterFirstRun(later(300, podViolation("owner", "a", "m1")));
    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            finished(podViolation("owner", "b", "m0")),
            aggregator.aggregates(),
            BOTH,
            GatekeeperMappingTest::byName);
    assertThat(s.reports()).isEmpty();
    assertThat(s.refused())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.resource()).isEqualTo("run " + ID);
              assertThat(r.reason()).contains("started before the newest result held");
            });
  }

  @Test
  void ofTwoRunsStartedInTheSameSecondTheLaterWins() {
    ReportAggregator aggregator = afterFirstRun(finished(podViolation("owner", "a", "first")));
    AuditRun.Finished second =
        new AuditRun.Finished(ID, STARTED, 1, List.of(podViolation("owner", "a", "second")));
    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            second, aggregator.aggregates(), BOTH, GatekeeperMappingTest::byName);
    assertThat(s.reports()).extracting(PartialReport::generation).containsExactly(1L);
    apply(aggregator, s);
    assertThat(held(aggregator)).containsExactly("uid-a K8sRequiredLabels/owner second");
  }

  @Test
  void othersResultsAreNotLookedAt() {
    ReportAggregator aggregator = aggregator();
    Subject pod = Subject.of("v1", "Pod", "team-a", "a", "uid-a");
    aggregator.apply(
        PartialReport.builder()
            .producer("kyverno/background-scan")
            .subject(pod)
            .results(
                List.of(
                    Result.builder()
                        .source("kyverno")
                        .policy("require-labels")
                        .rule("check")
                        .status(ResultStatus.FAIL)
                        .timestamp(Timestamp.ofSeconds(STARTED.seconds() + 9_999))
                        .build()))
            .observedAt(STARTED)
            .build());
    aggregator.flush();
    assertThat(
            GatekeeperMapping.statements(
                    finished(), aggregator.aggregates(), BOTH, s -> Optional.empty())
                .reports())
        .isEmpty();
  }

  @Test
  void aResourceWhoseResultCannotBeStatedIsRefusedAloneAndNothingOfItIsRetracted() {
    String longName = "n".repeat(250); // K8sRequiredLabels/ + 250 > 253 characters
    ReportAggregator aggregator =
        afterFirstRun(finished(podViolation("owner", "a", "m1"), podViolation("owner", "b", "m2")));
    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            later(
                300,
                podViolation("owner", "a", "m1"),
                podViolation(longName, "a", "m4"),
                podViolation("owner", "b", "m2")),
            aggregator.aggregates(),
            BOTH,
            GatekeeperMappingTest::byName);
    onlyBIsStatedAndOneRefused(s, "violations[1].policy: ");
    assertThat(s.refused().get(0).resource()).isEqualTo("Pod team-a/a");
  }

  @Test
  void aViolationWhoseResourceIsNotAValidSubjectIsRefusedAndTheOthersStated() {
    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            finished(
                violation(
                    "K8sA", "c", "deny", List.of(), "", "v1", "Pod", "n".repeat(64), "p", "m"),
                podViolation("owner", "b", "m2")),
            List.of(),
            BOTH,
            GatekeeperMappingTest::byName);
    onlyBIsStatedAndOneRefused(s, "violations[0].namespace: ");
  }

  private static void onlyBIsStatedAndOneRefused(GatekeeperMapping.Statements s, String reason) {
    assertThat(s.reports()).extracting(p -> p.subject().name()).containsExactly("b");
    assertThat(s.refused())
        .singleElement()
        .satisfies(r -> assertThat(r.reason()).startsWith(reason));
  }

  @Test
  void aUidThatCannotBeKnownStatesNothingOfTheRun() {
    assertThatThrownBy(
            () ->
                GatekeeperMapping.statements(
                    finished(podViolation("owner", "a", "m1")),
                    List.of(),
                    BOTH,
                    s -> {
                      throw new IllegalStateException("the cache of Pods has not synced");
                    }))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aResourceWhoseUidCannotBeKnownIsWithheldAndTheOthersStated() {
    ReportAggregator aggregator =
        afterFirstRun(
            finished(
                podViolation("owner", "a", "m1"),
                podViolation("owner", "b", "m2"),
                podViolation("owner", "c", "m3")));
    // a is named again but its uid cannot be read; b, held and not named, cannot be read either;
    // c is fixed: only c's result is retracted, a and b are withheld
    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            later(300, podViolation("owner", "a", "m4")),
            aggregator.aggregates(),
            BOTH,
            subject -> {
              if (subject.name().equals("a") || subject.name().equals("b")) {
                throw new GatekeeperMapping.UnknownUid(
                    "the lookup of " + subject.name() + " failed");
              }
              return byName(subject);
            });
    assertThat(s.refused())
        .extracting(GatekeeperMapping.Refusal::reason)
        .containsExactlyInAnyOrder("the lookup of a failed", "the lookup of b failed");
    apply(aggregator, s);
    assertThat(held(aggregator))
        .containsExactly("uid-a K8sRequiredLabels/owner m1", "uid-b K8sRequiredLabels/owner m2");
  }

  @Test
  void seedsFromTheAggregatesHoldWhatTheRunsStatedAndTheSameRunAppliedAgainChangesNothing() {
    AuditRun.Finished first =
        finished(
            podViolation("owner", "a", "m1"),
            podViolation("team", "a", "m2"),
            podViolation("team", "b", "m3"));
    ReportAggregator before = afterFirstRun(first);
    ClockRule clock = ClockRule.allowing(java.time.Duration.ofMinutes(5));
    Timestamp now = STARTED.plusSeconds(60);

    GatekeeperMapping.Statements seeds = GatekeeperMapping.seeds(before.aggregates(), clock, now);
    assertThat(seeds.refused()).isEmpty();
    assertThat(shown(seeds))
        .containsExactly(
            "uid-a 2 [K8sRequiredLabels/owner, K8sRequiredLabels/team]",
            "uid-b 1 [K8sRequiredLabels/team]");
    assertThat(seeds.reports())
        .allSatisfy(
            p -> {
              assertThat(p.producer()).isEqualTo(GatekeeperMapping.SEED_PRODUCER);
              assertThat(p.observedAt()).isEqualTo(STARTED);
            });
    ReportAggregator restarted = aggregator();
    apply(restarted, seeds);
    assertThat(restarted.aggregates()).isEqualTo(before.aggregates());

    // the run the seeds came from, read again (its file is still there): it wins the tie with the
    // seeds it made (same second, same generation) and holds the same
    apply(
        restarted,
        GatekeeperMapping.statements(
            first, restarted.aggregates(), BOTH, GatekeeperMappingTest::byName));
    assertThat(restarted.aggregates()).isEqualTo(before.aggregates());

    // a later run that names only b retracts a's confirmed results, seeded
    apply(
        restarted,
        GatekeeperMapping.statements(
            later(300, podViolation("team", "b", "m3")),
            restarted.aggregates(),
            BOTH,
            GatekeeperMappingTest::byName));
    assertThat(held(restarted)).containsExactly("uid-b K8sRequiredLabels/team m3");
  }

  @Test
  void aSeedOfTheSameSecondLosesToTheRunThatRetractsIt() {
    ReportAggregator aggregator = aggregator();
    apply(
        aggregator,
        GatekeeperMapping.seeds(
            afterFirstRun(finished(podViolation("owner", "a", "m1"))).aggregates(),
            ClockRule.allowing(java.time.Duration.ofMinutes(5)),
            STARTED));
    assertThat(held(aggregator)).containsExactly("uid-a K8sRequiredLabels/owner m1");
    // a run of the same second and generation that names nobody: the producers' order decides
    apply(
        aggregator,
        GatekeeperMapping.statements(
            new AuditRun.Finished(ID, STARTED, 0, List.of()),
            aggregator.aggregates(),
            BOTH,
            GatekeeperMappingTest::byName));
    assertThat(held(aggregator)).isEmpty();
    assertThat(GatekeeperMapping.SEED_PRODUCER).isLessThan(GatekeeperMapping.PRODUCER);
  }

  @Test
  void aResultNamingAResourceOfAnotherNamespaceSeedsNothingOfThatResource() {
    var forged =
        afterFirstRun(finished(podViolation("owner", "a", "m1"))).aggregates().stream()
            .map(
                a ->
                    new dev.tally.report.api.AggregateReport(
                        new dev.tally.report.api.ReportRef(
                            a.ref().kind(), "team-b", a.ref().name()),
                        a.labels(),
                        a.scope(),
                        a.owner(),
                        a.configuration(),
                        a.results(),
                        a.summary(),
                        a.contentHash()))
            .toList();
    GatekeeperMapping.Statements seeds =
        GatekeeperMapping.seeds(
            forged, ClockRule.allowing(java.time.Duration.ofMinutes(5)), STARTED);
    assertThat(seeds.reports()).isEmpty();
    assertThat(seeds.refused())
        .singleElement()
        .satisfies(r -> assertThat(r.reason()).contains("only for its own namespace"));
  }

  @Test
  void aResultStampedAfterNowSeedsNothingOfItsResource() {
    var held =
        afterFirstRun(finished(podViolation("owner", "a", "m1"), podViolation("owner", "b", "m2")))
            .aggregates();
    // read at a time before the run's start: its results are from the aggregator's future
    GatekeeperMapping.Statements seeds =
        GatekeeperMapping.seeds(
            held,
            ClockRule.allowing(java.time.Duration.ofMinutes(5)),
            Timestamp.ofSeconds(1_000_000_000L));
    assertThat(seeds.reports()).isEmpty();
    assertThat(seeds.refused())
        .hasSize(2)
        .allSatisfy(r -> assertThat(r.reason()).contains("after the aggregator's clock"));
  }

  @Test
  void withTheRunBeforesOmissionsARetractionWaitsForASecondRunInARowButADeletionDoesNot() {
    ReportAggregator aggregator =
        afterFirstRun(
            finished(
                podViolation("owner", "a", "m1"),
                podViolation("owner", "b", "m2"),
                podViolation("owner", "c", "m3")));
    // a is fixed (not named), b still violates, c is deleted
    Function<Subject, Optional<String>> uidOf =
        s -> s.name().equals("c") ? Optional.empty() : byName(s);
    GatekeeperMapping.Statements second =
        GatekeeperMapping.statements(
            later(300, podViolation("owner", "b", "m4")),
            aggregator.aggregates(),
            BOTH,
            uidOf,
            GatekeeperMapping.Omissions.NONE);
    apply(aggregator, second);
    assertThat(held(aggregator))
        .as("c gone at once; a's omission waits for a second run")
        .containsExactly("uid-a K8sRequiredLabels/owner m1", "uid-b K8sRequiredLabels/owner m4");

    GatekeeperMapping.Statements third =
        GatekeeperMapping.statements(
            later(600, podViolation("owner", "b", "m5")),
            aggregator.aggregates(),
            BOTH,
            uidOf,
            second.omitted());
    apply(aggregator, third);
    assertThat(held(aggregator)).containsExactly("uid-b K8sRequiredLabels/owner m5");

    // one omission not repeated is not remembered further: a run that names b again after one
    // that omitted it keeps it
    GatekeeperMapping.Statements missed =
        GatekeeperMapping.statements(
            later(900), aggregator.aggregates(), BOTH, uidOf, third.omitted());
    apply(aggregator, missed);
    assertThat(held(aggregator)).containsExactly("uid-b K8sRequiredLabels/owner m5");
    GatekeeperMapping.Statements back =
        GatekeeperMapping.statements(
            later(1200, podViolation("owner", "b", "m6")),
            aggregator.aggregates(),
            BOTH,
            uidOf,
            missed.omitted());
    apply(aggregator, back);
    assertThat(held(aggregator)).containsExactly("uid-b K8sRequiredLabels/owner m6");
    apply(
        aggregator,
        GatekeeperMapping.statements(
            later(1500), aggregator.aggregates(), BOTH, uidOf, back.omitted()));
    assertThat(held(aggregator))
        .as("omitted once since it was named again")
        .containsExactly("uid-b K8sRequiredLabels/owner m6");
  }
}
