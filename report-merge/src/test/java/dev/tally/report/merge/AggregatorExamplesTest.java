package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Worked examples of groupings, formats, tombstones and the status filter. */
class AggregatorExamplesTest {
  private static final Subject POD = Subject.of("v1", "Pod", "shop", "web-0", "uid-web-0");
  private static final Subject NODE = Subject.of("v1", "Node", "", "node-1", "uid-node-1");

  @Test
  void perSubjectReportsAreScopedToAndOwnedByTheirSubject() {
    var a = ReportAggregator.builder().grouping(Grouping.perSubject()).build();
    a.apply(partial(POD, 10, result("require-labels", ResultStatus.FAIL)));
    a.apply(partial(NODE, 10, result("node-hardening", ResultStatus.PASS)));
    List<AggregateReport> reports = a.aggregates();
    assertThat(reports)
        .extracting(r -> r.ref().kind())
        .containsExactly(ReportKind.POLICY_REPORT, ReportKind.CLUSTER_POLICY_REPORT);
    AggregateReport pod = reports.get(0);
    assertThat(pod.scope()).contains(POD);
    assertThat(pod.owner()).contains(POD);
    assertThat(pod.ref().namespace()).isEqualTo("shop");
    assertThat(pod.labels())
        .containsEntry(WireNames.MANAGED_BY_LABEL, "tally")
        .containsKey(WireNames.GROUP_LABEL);
  }

  @Test
  void clusterScopedSubjectsGoToTheClusterScopedKind() {
    var a = ReportAggregator.builder().format(ReportFormat.OPENREPORTS).build();
    a.apply(partial(NODE, 10, result("node-hardening", ResultStatus.FAIL)));
    a.apply(partial(POD, 10, result("require-labels", ResultStatus.PASS)));
    assertThat(a.aggregates())
        .extracting(r -> r.ref().kind())
        .containsExactlyInAnyOrder(ReportKind.REPORT, ReportKind.CLUSTER_REPORT);
  }

  @Test
  void perNamespaceAndPolicyMakesOneReportPerPolicy() {
    var a = ReportAggregator.builder().grouping(Grouping.perNamespaceAndPolicy()).build();
    a.apply(
        partial(
            POD,
            10,
            result("require-labels", ResultStatus.FAIL),
            result("disallow-latest-tag", ResultStatus.PASS)));
    assertThat(a.aggregates())
        .extracting(r -> r.ref().name())
        .containsExactly(
            "tally-policy-kyverno-disallow-latest-tag", "tally-policy-kyverno-require-labels");
  }

  @Test
  void aCustomGroupingStaysInsideTheSubjectsNamespace() {
    var a =
        ReportAggregator.builder()
            .grouping(
                Grouping.custom("team", (subject, key) -> "../other-namespace/" + key.policy()))
            .build();
    a.apply(partial(POD, 10, result("require-labels", ResultStatus.FAIL)));
    AggregateReport only = a.aggregates().get(0);
    assertThat(only.ref().namespace()).isEqualTo("shop");
    assertThat(only.ref().name()).startsWith("tally-team-other-namespace-require-labels-");
  }

  @Test
  void openReportsCarryTheirConfigurationAndTheStatusFilterIsHonoured() {
    var a =
        ReportAggregator.builder()
            .format(ReportFormat.OPENREPORTS)
            .limits(
                ReportLimits.defaults()
                    .withMaxResults(100)
                    .withStatusFilter(EnumSet.of(ResultStatus.FAIL, ResultStatus.ERROR)))
            .build();
    a.apply(
        partial(
            POD,
            10,
            result("require-labels", ResultStatus.FAIL),
            result("disallow-latest-tag", ResultStatus.PASS)));
    AggregateReport report = a.aggregates().get(0);
    assertThat(report.configuration())
        .contains(new ReportConfiguration(100, EnumSet.of(ResultStatus.FAIL, ResultStatus.ERROR)));
    assertThat(report.results()).extracting(Result::status).containsExactly(ResultStatus.FAIL);
    assertThat(report.summary().pass()).isZero();
  }

  @Test
  void tombstonesHideLateOlderReportsUntilTheyExpire() {
    var a = ReportAggregator.builder().tombstoneRetention(Duration.ofMinutes(10)).build();
    PartialReport late = partial(POD, 100, result("require-labels", ResultStatus.FAIL));
    a.deleteSubject(POD.namespace(), POD.uid(), Timestamp.ofSeconds(200));
    a.apply(late);
    assertThat(a.aggregates()).isEmpty();

    assertThat(a.expireTombstones(Timestamp.ofSeconds(200 + 600))).isZero();
    a.apply(late);
    assertThat(a.aggregates()).isEmpty();

    // past the retention the deletion is forgotten: only then can an old report come back
    assertThat(a.expireTombstones(Timestamp.ofSeconds(200 + 601))).isEqualTo(1);
    a.apply(late);
    assertThat(a.aggregates()).hasSize(1);
  }

  @Test
  void aReportObservedAfterTheDeletionIsAboutANewLifeAndStays() {
    var a = ReportAggregator.builder().build();
    a.deleteSubject(POD.namespace(), POD.uid(), Timestamp.ofSeconds(200));
    a.apply(partial(POD, 201, result("require-labels", ResultStatus.FAIL)));
    assertThat(a.aggregates()).hasSize(1);
  }

  @Test
  void aResultWithoutResourcesIsAboutThePartialsSubject() {
    var a = ReportAggregator.builder().build();
    a.apply(partial(POD, 10, result("require-labels", ResultStatus.FAIL)));
    assertThat(a.aggregates().get(0).results().get(0).resources()).containsExactly(POD);
  }

  @Test
  void retiringARuleHidesOnlyThatRule() {
    var a = ReportAggregator.builder().build();
    Result other = result("require-labels", ResultStatus.PASS).toBuilder().rule("other").build();
    a.apply(partial(POD, 10, result("require-labels", ResultStatus.FAIL), other));
    a.flush();
    a.setLiveness(
        dev.tally.report.api.Liveness.all()
            .withRetiredRule(CoverageKey.of("kyverno", "require-labels"), "check"));
    assertThat(a.aggregates().get(0).results()).extracting(Result::rule).containsExactly("other");
    assertThat(a.flush().updates()).hasSize(1);
  }

  private static Result result(String policy, ResultStatus status) {
    return Result.builder().source("kyverno").policy(policy).rule("check").status(status).build();
  }

  private static PartialReport partial(Subject subject, long seconds, Result... results) {
    return PartialReport.builder()
        .producer("background")
        .subject(subject)
        .results(List.of(results))
        .coverage(Set.of())
        .observedAt(Timestamp.ofSeconds(seconds))
        .build();
  }
}
