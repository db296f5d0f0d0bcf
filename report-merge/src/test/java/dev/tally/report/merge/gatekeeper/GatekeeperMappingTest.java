package dev.tally.report.merge.gatekeeper;

import static dev.tally.report.merge.gatekeeper.AuditRunTest.ID;
import static dev.tally.report.merge.gatekeeper.AuditRunTest.STARTED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GatekeeperMappingTest {
  static ExportLine violation(
      String constraintKind,
      String constraint,
      String action,
      List<String> scoped,
      String group,
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
        "v1",
        kind,
        namespace,
        name);
  }

  static ExportLine podViolation(String constraint, String pod, String message) {
    return violation(
        "K8sRequiredLabels", constraint, "deny", List.of(), "", "Pod", "team-a", pod, message);
  }

  static AuditRun.Finished finished(ExportLine... violations) {
    return new AuditRun.Finished(ID, STARTED, List.of(violations));
  }

  @Test
  void aViolationIsAFailedResultOfTheConstraintAboutItsResource() {
    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            finished(
                violation(
                    "K8sAllowedRepos",
                    "prod-repos",
                    "deny",
                    List.of(),
                    "apps",
                    "Deployment",
                    "team-a",
                    "web",
                    "container <nginx> has an invalid image repo")),
            List.of());
    Subject web = Subject.of("apps/v1", "Deployment", "team-a", "web", "");
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
                .subject(web)
                .coverage(Set.of(CoverageKey.of("gatekeeper", "K8sAllowedRepos/prod-repos")))
                .results(List.of(expected))
                .observedAt(STARTED)
                .build());
    assertThat(s.reports().get(0).adopted())
        .as("exports carry no uid: the adapter adopts")
        .isFalse();
  }

  @Test
  void aConstraintThatOnlyWarnsGivesWarnAndEveryOtherActionFail() {
    List<ExportLine> lines =
        List.of(
            violation("K8sA", "warns", "warn", List.of(), "", "Pod", "ns", "p1", "m"),
            violation("K8sA", "dry", "dryrun", List.of(), "", "Pod", "ns", "p2", "m"),
            violation("K8sA", "scoped-warn", "scoped", List.of("warn"), "", "Pod", "ns", "p3", "m"),
            violation(
                "K8sA",
                "scoped-deny",
                "scoped",
                List.of("warn", "deny"),
                "",
                "Pod",
                "ns",
                "p4",
                "m"),
            violation("K8sA", "scoped-none", "scoped", List.of(), "", "Pod", "ns", "p5", "m"));
    List<PartialReport> reports =
        GatekeeperMapping.statements(new AuditRun.Finished(ID, STARTED, lines), List.of())
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
                        "Namespace",
                        "",
                        "team-b",
                        "m")),
                List.of())
            .reports()
            .get(0);
    assertThat(p.subject()).isEqualTo(Subject.of("v1", "Namespace", "", "team-b", ""));
  }

  @Test
  void everyResourceNamedCoversEveryConstraintTheRunFoundViolated() {
    List<PartialReport> reports =
        GatekeeperMapping.statements(
                finished(podViolation("owner", "a", "m1"), podViolation("team", "b", "m2")),
                List.of())
            .reports();
    Set<CoverageKey> both =
        Set.of(
            CoverageKey.of("gatekeeper", "K8sRequiredLabels/owner"),
            CoverageKey.of("gatekeeper", "K8sRequiredLabels/team"));
    assertThat(reports).extracting(PartialReport::coverage).containsExactly(both, both);
    assertThat(reports).extracting(p -> p.results().size()).containsExactly(1, 1);
  }

  @Test
  void aResourceHeldThatTheRunNoLongerNamesIsRetractedUnderItsUid() {
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
    AuditRun.Finished first =
        finished(podViolation("owner", "a", "m1"), podViolation("team", "b", "m2"));
    GatekeeperMapping.statements(first, List.of())
        .reports()
        .forEach(p -> aggregator.apply(p.withSubjectUid("uid-" + p.subject().name())));
    aggregator.flush();
    List<AggregateReport> held = aggregator.aggregates();

    // a: fixed; b: violates "team" still and "owner" now
    AuditRun.Finished second =
        new AuditRun.Finished(
            "2026-12-04T10:20:30Z",
            STARTED.plusSeconds(300),
            List.of(podViolation("owner", "b", "m3")));
    List<PartialReport> reports = GatekeeperMapping.statements(second, held).reports();
    assertThat(reports)
        .extracting(p -> p.subject().name() + " " + p.subject().uid() + " " + p.results().size())
        .containsExactly("b  1", "a uid-a 0");
    assertThat(reports.get(0).coverage())
        .as("b covers what the run found and what it held")
        .containsExactlyInAnyOrder(
            CoverageKey.of("gatekeeper", "K8sRequiredLabels/owner"),
            CoverageKey.of("gatekeeper", "K8sRequiredLabels/team"));
    assertThat(reports.get(1).coverage())
        .containsExactly(CoverageKey.of("gatekeeper", "K8sRequiredLabels/owner"));

    reports.forEach(p -> aggregator.apply(p.withSubjectUid("uid-" + p.subject().name())));
    aggregator.flush();
    assertThat(aggregator.aggregates())
        .flatExtracting(AggregateReport::results)
        .extracting(r -> r.resources().get(0).name() + " " + r.policy() + " " + r.message())
        .containsExactly("b K8sRequiredLabels/owner m3");
  }

  @Test
  void othersResultsAreNotRetracted() {
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
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
                        .resource(pod)
                        .build()))
            .observedAt(STARTED)
            .build());
    aggregator.flush();
    assertThat(GatekeeperMapping.statements(finished(), aggregator.aggregates()).reports())
        .isEmpty();
  }

  @Test
  void aResourceWhoseResultCannotBeStatedIsRefusedAloneAndNothingOfItIsRetracted() {
    String longName = "n".repeat(250); // K8sRequiredLabels/ + 250 > 253 characters
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
    GatekeeperMapping.statements(
            finished(podViolation("owner", "a", "m1"), podViolation("owner", "b", "m2")), List.of())
        .reports()
        .forEach(p -> aggregator.apply(p.withSubjectUid("uid-" + p.subject().name())));
    aggregator.flush();

    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            finished(
                podViolation("owner", "a", "m1"),
                podViolation(longName, "a", "m4"),
                podViolation("owner", "b", "m2")),
            aggregator.aggregates());
    assertThat(s.reports()).extracting(p -> p.subject().name()).containsExactly("b");
    assertThat(s.refused()).hasSize(1);
    assertThat(s.refused().get(0).resource()).isEqualTo("Pod team-a/a");
    assertThat(s.refused().get(0).reason()).startsWith("violations[1].policy: ");
  }

  @Test
  void aViolationWhoseResourceIsNotAValidSubjectIsRefusedAndTheOthersStated() {
    GatekeeperMapping.Statements s =
        GatekeeperMapping.statements(
            finished(
                violation("K8sA", "c", "deny", List.of(), "", "Pod", "n".repeat(64), "p", "m"),
                podViolation("owner", "b", "m2")),
            List.of());
    assertThat(s.reports()).extracting(p -> p.subject().name()).containsExactly("b");
    assertThat(s.refused())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.reason()).startsWith("violations[0].namespace: ");
            });
  }
}
