package dev.tally.report.merge.kyverno;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The mapping rule of Kyverno's intermediate reports, example by example. */
class KyvernoMappingTest {
  /** Seeds are read long after the scenario's times: no time is in the future. */
  static final dev.tally.report.api.Timestamp NOW =
      dev.tally.report.api.Timestamp.ofSeconds(4_000_000_000L);

  static final dev.tally.report.merge.publish.ClockRule CLOCK =
      dev.tally.report.merge.publish.ClockRule.allowing(
          dev.tally.report.merge.publish.ClockRule.DEFAULT_MAX_SKEW);

  private static Map<String, String> podLabels(String source) {
    Map<String, String> labels = new HashMap<>();
    labels.put("app.kubernetes.io/managed-by", "kyverno");
    labels.put(KyvernoMapping.SOURCE_LABEL, source);
    labels.put(KyvernoMapping.GROUP_LABEL, "");
    labels.put(KyvernoMapping.VERSION_LABEL, "v1");
    labels.put(KyvernoMapping.KIND_LABEL, "Pod");
    labels.put(KyvernoMapping.UID_LABEL, "uid-1");
    return labels;
  }

  private static Map<String, String> podAnnotations() {
    return Map.of(
        KyvernoMapping.NAMESPACE_ANNOTATION, "shop", KyvernoMapping.NAME_ANNOTATION, "web-0");
  }

  private static Result result(String source, String policy, ResultStatus status, long seconds) {
    return Result.builder()
        .source(source)
        .policy(policy)
        .rule("check")
        .status(status)
        .timestamp(Timestamp.ofSeconds(seconds))
        .build();
  }

  private static PartialReport ready(IntermediateReport report) {
    var outcome = KyvernoMapping.map(report);
    assertThat(outcome).isInstanceOf(KyvernoMapping.Outcome.Ready.class);
    return ((KyvernoMapping.Outcome.Ready) outcome).partial();
  }

  @Test
  void aBackgroundScanCoversEveryPolicyItsLabelsNameSoAPolicyWithoutResultsIsRetracted() {
    Map<String, String> labels = podLabels("background-scan");
    labels.put("cpol.kyverno.io/require-labels", "1001");
    labels.put("cpol.kyverno.io/disallow-latest", "1002");
    labels.put("pol.kyverno.io/team-rules", "1003");
    labels.put("polex.kyverno.io/allow-web", "1004"); // an exception: not a policy
    labels.put(KyvernoMapping.HASH_LABEL, "0a1b2c");
    var report =
        new IntermediateReport(
            "shop",
            "uid-1-abcde",
            labels,
            Map.of(
                KyvernoMapping.NAMESPACE_ANNOTATION,
                "shop",
                KyvernoMapping.NAME_ANNOTATION,
                "web-0",
                KyvernoMapping.LAST_SCAN_ANNOTATION,
                "2026-01-01T00:00:10Z"),
            Optional.of("uid-1"),
            Optional.of(Timestamp.ofSeconds(1_767_225_000L)),
            List.of(result("kyverno", "require-labels", ResultStatus.PASS, 1_767_225_605L)));

    PartialReport partial = ready(report);

    assertThat(partial.producer()).isEqualTo("kyverno/background-scan");
    assertThat(partial.subject()).isEqualTo(Subject.of("v1", "Pod", "shop", "web-0", "uid-1"));
    assertThat(partial.subjectVersion()).isEqualTo("0a1b2c");
    assertThat(partial.coverage())
        .containsExactly(
            CoverageKey.of("kyverno", "disallow-latest"),
            CoverageKey.of("kyverno", "require-labels"),
            CoverageKey.of("kyverno", "shop/team-rules"));
    // the last scan (00:00:10) is later than the result's time (00:00:05) and the creation
    assertThat(partial.observedAt()).isEqualTo(Timestamp.ofSeconds(1_767_225_610L));
  }

  @Test
  void withoutPolicyLabelsTheResultsKeysAreTheCoverage() {
    var report =
        new IntermediateReport(
            "shop",
            "r",
            podLabels("admission"),
            podAnnotations(),
            Optional.empty(),
            Optional.empty(),
            List.of(
                result("KyvernoValidatingPolicy", "check-image", ResultStatus.FAIL, 20),
                result("kyverno", "require-labels", ResultStatus.PASS, 30)));

    PartialReport partial = ready(report);

    assertThat(partial.producer()).isEqualTo("kyverno/admission");
    assertThat(partial.coverage())
        .containsExactly(
            CoverageKey.of("KyvernoValidatingPolicy", "check-image"),
            CoverageKey.of("kyverno", "require-labels"));
    assertThat(partial.observedAt()).isEqualTo(Timestamp.ofSeconds(30));
  }

  @Test
  void everyKnownPolicyPrefixNamesItsSourceAndUnknownOnesAreIgnored() {
    Map<String, String> labels = new HashMap<>();
    KyvernoMapping.POLICY_SOURCES.keySet().forEach(prefix -> labels.put(prefix + "/p", "1"));
    labels.put("dpol.kyverno.io/cleanup", "1");
    labels.put("example.com/p", "1");

    assertThat(KyvernoMapping.coverage(labels, ""))
        .extracting(CoverageKey::source)
        .containsExactlyInAnyOrder(
            "kyverno",
            "KyvernoValidatingPolicy",
            "KyvernoImageValidatingPolicy",
            "KyvernoGeneratingPolicy",
            "KyvernoMutatingPolicy",
            "ValidatingAdmissionPolicy",
            "MutatingAdmissionPolicy");
  }

  @Test
  void anAdmissionReportAboutAnObjectNotYetCreatedAwaitsAdoption() {
    Map<String, String> labels = podLabels("admission");
    labels.remove(KyvernoMapping.UID_LABEL);
    labels.put("cpol.kyverno.io/require-labels", "7");
    var outcome =
        KyvernoMapping.map(
            new IntermediateReport(
                "shop",
                "req-1",
                labels,
                podAnnotations(),
                Optional.empty(),
                Optional.of(Timestamp.ofSeconds(5)),
                List.of(result("kyverno", "require-labels", ResultStatus.FAIL, 5))));

    assertThat(outcome)
        .isEqualTo(
            new KyvernoMapping.Outcome.AwaitsAdoption(
                Subject.of("v1", "Pod", "shop", "web-0", "")));
  }

  @Test
  void aReportWithNeitherResultsNorPolicyLabelsSaysNothing() {
    assertThat(
            KyvernoMapping.map(
                new IntermediateReport(
                    "shop",
                    "r",
                    podLabels("background-scan"),
                    podAnnotations(),
                    Optional.of("uid-1"),
                    Optional.of(Timestamp.ofSeconds(5)),
                    List.of())))
        .isEqualTo(new KyvernoMapping.Outcome.Silent());
  }

  @Test
  void missingOrContradictoryResourceFieldsAreRefusedNamingTheKey() {
    Map<String, String> noKind = podLabels("admission");
    noKind.remove(KyvernoMapping.KIND_LABEL);
    assertThatThrownBy(
            () ->
                KyvernoMapping.map(
                    new IntermediateReport(
                        "shop",
                        "r",
                        noKind,
                        podAnnotations(),
                        Optional.empty(),
                        Optional.of(Timestamp.ofSeconds(1)),
                        List.of(result("kyverno", "p", ResultStatus.PASS, 1)))))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("metadata.labels[audit.kyverno.io/resource.kind]");

    assertThatThrownBy(
            () ->
                KyvernoMapping.map(
                    new IntermediateReport(
                        "other",
                        "r",
                        podLabels("admission"),
                        podAnnotations(),
                        Optional.empty(),
                        Optional.of(Timestamp.ofSeconds(1)),
                        List.of(result("kyverno", "p", ResultStatus.PASS, 1)))))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("metadata.annotations[audit.kyverno.io/resource.namespace]")
        .hasMessageContaining("'other'");

    assertThatThrownBy(
            () ->
                KyvernoMapping.map(
                    new IntermediateReport(
                        "shop",
                        "r",
                        podLabels("background-scan"),
                        Map.of(
                            KyvernoMapping.NAMESPACE_ANNOTATION,
                            "shop",
                            KyvernoMapping.NAME_ANNOTATION,
                            "web-0",
                            KyvernoMapping.LAST_SCAN_ANNOTATION,
                            "yesterday"),
                        Optional.of("uid-1"),
                        Optional.empty(),
                        List.of())))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("audit.kyverno.io/last-scan-time")
        .hasMessageContaining("yesterday");
  }

  private static final Subject WEB = Subject.of("v1", "Pod", "shop", "web-0", "uid-1");
  private static final Subject API = Subject.of("apps/v1", "Deployment", "shop", "api", "uid-2");

  private static Result ruleResult(String policy, String rule, ResultStatus status, long seconds) {
    return Result.builder()
        .source("kyverno")
        .policy(policy)
        .rule(rule)
        .status(status)
        .timestamp(Timestamp.ofSeconds(seconds))
        .build();
  }

  /** A PolicyReport as Kyverno's reports controller writes it: no content hash. */
  private static AggregateReport kyvernoReport(Optional<Subject> scope, List<Result> results) {
    return new AggregateReport(
        new ReportRef(ReportKind.POLICY_REPORT, "shop", "uid-1"),
        Map.of(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_KYVERNO),
        scope,
        scope,
        Optional.empty(),
        results,
        Summary.of(results),
        "");
  }

  private static ReportAggregator seeded(AggregateReport report) {
    ReportAggregator a = ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build();
    KyvernoMapping.seed(report, CLOCK, NOW).forEach(a::apply);
    return a;
  }

  private static List<String> verdicts(ReportAggregator a) {
    return a.aggregates().stream()
        .flatMap(r -> r.results().stream())
        .map(
            r ->
                r.policy()
                    + "/"
                    + r.rule()
                    + "="
                    + r.status()
                    + "@"
                    + r.timestamp().orElseThrow().seconds())
        .sorted()
        .toList();
  }

  @Test
  void aReportSeedsOnePartialReportPerPolicyObservedAtItsLatestResult() {
    Result labelsCheck = ruleResult("require-labels", "check", ResultStatus.FAIL, 50);
    Result labelsAutogen = ruleResult("require-labels", "autogen-check", ResultStatus.PASS, 70);
    Result latest = ruleResult("disallow-latest", "check", ResultStatus.PASS, 60);
    Result untimed =
        Result.builder()
            .source("KyvernoValidatingPolicy")
            .policy("check-image")
            .status(ResultStatus.WARN)
            .build();

    List<PartialReport> seeds =
        KyvernoMapping.seed(
            kyvernoReport(Optional.of(WEB), List.of(labelsCheck, latest, untimed, labelsAutogen)),
            CLOCK,
            NOW);

    assertThat(seeds)
        .extracting(PartialReport::coverage)
        .containsExactly(
            java.util.Set.of(CoverageKey.of("KyvernoValidatingPolicy", "check-image")),
            java.util.Set.of(CoverageKey.of("kyverno", "disallow-latest")),
            java.util.Set.of(CoverageKey.of("kyverno", "require-labels")));
    assertThat(seeds).allSatisfy(p -> assertThat(p.producer()).isEqualTo("kyverno/report"));
    assertThat(seeds).allSatisfy(p -> assertThat(p.subject()).isEqualTo(WEB));
    assertThat(seeds)
        .extracting(PartialReport::observedAt)
        .containsExactly(Timestamp.EPOCH, Timestamp.ofSeconds(60), Timestamp.ofSeconds(70));
    assertThat(seeds.get(2).results()).containsExactlyInAnyOrder(labelsCheck, labelsAutogen);
    assertThat(KyvernoMapping.SEED_PRODUCER).isEqualTo("kyverno/report");
  }

  @Test
  void aSeededAggregatorWritesBackWhatTheReportHeld() {
    ReportAggregator original =
        ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build();
    original.apply(
        PartialReport.builder()
            .producer("kyverno/background-scan")
            .subject(WEB)
            .results(
                List.of(
                    ruleResult("require-labels", "check", ResultStatus.FAIL, 50),
                    ruleResult("disallow-latest", "check", ResultStatus.PASS, 50)))
            .observedAt(Timestamp.ofSeconds(50))
            .build());
    AggregateReport written = original.aggregates().get(0);

    ReportAggregator rebuilt = seeded(written.withContentHash(""));

    assertThat(rebuilt.aggregates()).isEqualTo(original.aggregates());
    assertThat(rebuilt.resync(List.of(written)).isEmpty()).isTrue();
  }

  @Test
  void aReportAsKyvernoWritesItWithTheResourceInItsScopeOnlyIsTakenOverWithoutAWrite() {
    // Kyverno's per-resource reports name the resource in scope and owner, never in a result
    List<Result> results =
        List.of(
            ruleResult("require-labels", "check", ResultStatus.FAIL, 50),
            ruleResult("disallow-latest", "check", ResultStatus.PASS, 60));
    assertThat(results).allSatisfy(r -> assertThat(r.resources()).isEmpty());
    AggregateReport kyverno = kyvernoReport(Optional.of(WEB), results);

    ReportAggregator takenOver = seeded(kyverno);

    assertThat(takenOver.resync(List.of(kyverno)).changes())
        .as("the changes taking over a report as Kyverno wrote it")
        .isEmpty();
    // the same verdicts about another resource are other content
    AggregateReport aboutApi =
        kyvernoReport(
            Optional.of(WEB),
            results.stream().map(r -> r.toBuilder().resources(List.of(API)).build()).toList());
    assertThat(seeded(kyverno).resync(List.of(aboutApi)).changes()).hasSize(1);
  }

  @Test
  void anEmptyReportSeedsNothing() {
    assertThat(KyvernoMapping.seed(kyvernoReport(Optional.of(WEB), List.of()), CLOCK, NOW))
        .isEmpty();
  }

  @Test
  void aReportWithoutScopeOrScopeUidIsRefusedNamingTheField() {
    List<Result> results = List.of(ruleResult("p", "r", ResultStatus.PASS, 1));
    assertThatThrownBy(
            () -> KyvernoMapping.seed(kyvernoReport(Optional.empty(), results), CLOCK, NOW))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("scope");
    assertThatThrownBy(
            () ->
                KyvernoMapping.seed(
                    kyvernoReport(
                        Optional.of(Subject.of("v1", "Pod", "shop", "web-0", "")), results),
                    CLOCK,
                    NOW))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("scope.uid");
  }

  @Test
  void aReportWhoseScopeIsInAnotherNamespaceSeedsNothingNamingTheField() {
    // a tenant's PolicyReport in "shop", labelled as Kyverno's, about a Pod of "bank"
    Subject elsewhere = Subject.of("v1", "Pod", "bank", "vault-0", "uid-9");
    List<Result> results = List.of(ruleResult("p", "r", ResultStatus.PASS, 1));
    assertThatThrownBy(
            () -> KyvernoMapping.seed(kyvernoReport(Optional.of(elsewhere), results), CLOCK, NOW))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("scope.namespace")
        .hasMessageContaining("bank");
    // nor a namespaced report about a cluster-scoped resource
    Subject node = Subject.of("v1", "Namespace", "", "bank", "uid-8");
    assertThatThrownBy(
            () -> KyvernoMapping.seed(kyvernoReport(Optional.of(node), results), CLOCK, NOW))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("scope.namespace");
  }

  @Test
  void aSeedNeverOutranksAnEvaluationMadeAfterItWasRead() {
    // the report's result is stamped two minutes ahead of the aggregator's clock (within the
    // allowed skew): the seed is observed at the moment it is read, not at that time
    long now = 1_000_000;
    Result ahead = ruleResult("require-labels", "check", ResultStatus.FAIL, now + 120);
    List<PartialReport> seeds =
        KyvernoMapping.seed(
            kyvernoReport(Optional.of(WEB), List.of(ahead)), CLOCK, Timestamp.ofSeconds(now));
    assertThat(seeds)
        .extracting(PartialReport::observedAt)
        .containsExactly(Timestamp.ofSeconds(now));

    ReportAggregator a = ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build();
    seeds.forEach(a::apply);
    // a real evaluation a second after the seeding, whose results carry its own (earlier) stamps
    a.apply(
        PartialReport.builder()
            .producer("kyverno/background-scan")
            .subject(WEB)
            .coverage(java.util.Set.of(ahead.coverageKey()))
            .results(List.of(ruleResult("require-labels", "check", ResultStatus.PASS, now + 1)))
            .observedAt(Timestamp.ofSeconds(now + 1))
            .build());
    assertThat(verdicts(a)).containsExactly("require-labels/check=pass@" + (now + 1));
  }

  @Test
  void aSeedStampedBeyondTheClockRuleIsRefusedNamingTheResult() {
    long now = 1_000_000;
    Result farFuture = ruleResult("p", "r", ResultStatus.PASS, 253_402_300_000L);
    assertThatThrownBy(
            () ->
                KyvernoMapping.seed(
                    kyvernoReport(Optional.of(WEB), List.of(farFuture)),
                    CLOCK,
                    Timestamp.ofSeconds(now)))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("results[0].timestamp")
        .hasMessageContaining("clock skew");
  }

  @Test
  void aLaterIntermediateReportForTheSamePolicyWinsOverTheSeed() {
    ReportAggregator a =
        seeded(
            kyvernoReport(
                Optional.of(WEB),
                List.of(
                    ruleResult("require-labels", "check", ResultStatus.FAIL, 50),
                    ruleResult("disallow-latest", "check", ResultStatus.FAIL, 50))));

    a.apply(ready(intermediate("admission", 60, "require-labels", ResultStatus.PASS)));

    assertThat(verdicts(a))
        .containsExactly("disallow-latest/check=fail@50", "require-labels/check=pass@60");
  }

  @Test
  void anOlderIntermediateReportDoesNotWinOverTheSeed() {
    ReportAggregator a =
        seeded(
            kyvernoReport(
                Optional.of(WEB),
                List.of(ruleResult("require-labels", "check", ResultStatus.FAIL, 50))));

    a.apply(ready(intermediate("admission", 40, "require-labels", ResultStatus.PASS)));

    assertThat(verdicts(a)).containsExactly("require-labels/check=fail@50");
  }

  @Test
  void aLaterBackgroundScanThatCoversThePolicyWithoutAResultRetractsTheSeededResult() {
    ReportAggregator a =
        seeded(
            kyvernoReport(
                Optional.of(WEB),
                List.of(
                    ruleResult("require-labels", "check", ResultStatus.FAIL, 50),
                    ruleResult("disallow-latest", "check", ResultStatus.FAIL, 50))));
    Map<String, String> labels = podLabels("background-scan");
    labels.put("cpol.kyverno.io/require-labels", "1");

    a.apply(
        ready(
            new IntermediateReport(
                "shop",
                "uid-1-scan",
                labels,
                podAnnotations(),
                Optional.of("uid-1"),
                Optional.of(Timestamp.ofSeconds(60)),
                List.of())));

    assertThat(verdicts(a)).containsExactly("disallow-latest/check=fail@50");
  }

  /** An admission report about web-0 with one result of {@code policy}'s rule check. */
  private static IntermediateReport intermediate(
      String source, long seconds, String policy, ResultStatus status) {
    Map<String, String> labels = podLabels(source);
    labels.put("cpol.kyverno.io/" + policy, "1");
    return new IntermediateReport(
        "shop",
        "uid-1-" + seconds,
        labels,
        podAnnotations(),
        Optional.of("uid-1"),
        Optional.of(Timestamp.ofSeconds(seconds)),
        List.of(ruleResult(policy, "check", status, seconds)));
  }
}
