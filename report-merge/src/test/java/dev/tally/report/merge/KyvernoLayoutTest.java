package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Kyverno's layout through the public API: what a {@link Grouping#kyvernoPerResource()} aggregator
 * writes, and which observed objects its resync takes over, deletes or leaves alone.
 */
class KyvernoLayoutTest {
  private static final Subject POD = Subject.of("v1", "Pod", "shop", "web-0", "0b1c2d3e-uid-pod");
  private static final Subject NODE = Subject.of("v1", "Node", "", "node-1", "4f5a6b7c-uid-node");
  private static final Map<String, String> KYVERNO_LABELS =
      Map.of(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_KYVERNO);

  private static ReportAggregator kyverno(ReportFormat format) {
    return ReportAggregator.builder()
        .grouping(Grouping.kyvernoPerResource())
        .format(format)
        .build();
  }

  private static Result result(String policy, String rule, ResultStatus status) {
    return Result.builder()
        .source("kyverno")
        .policy(policy)
        .rule(rule)
        .status(status)
        .timestamp(Timestamp.ofSeconds(100))
        .build();
  }

  private static PartialReport partial(Subject subject, List<Result> results) {
    return PartialReport.builder()
        .producer("kyverno/background-scan")
        .subject(subject)
        .results(results)
        .observedAt(Timestamp.ofSeconds(100))
        .build();
  }

  /** An object in the cluster: {@code labels}, no content hash (as a codec reads Kyverno's). */
  private static AggregateReport observed(
      ReportKind kind, Subject subject, String name, Map<String, String> labels) {
    List<Result> results = List.of(result("old-policy", "check", ResultStatus.FAIL));
    return new AggregateReport(
        new ReportRef(kind, subject.namespace(), name),
        labels,
        Optional.of(subject),
        Optional.of(subject),
        Optional.empty(),
        results,
        Summary.of(results),
        "");
  }

  @Test
  void eachResourceHasOneReportNamedItsUidLabelledOnlyManagedByKyvernoScopedToAndOwnedByIt() {
    for (ReportFormat format : ReportFormat.values()) {
      for (Subject subject : List.of(POD, NODE)) {
        ReportAggregator a = kyverno(format);
        a.apply(
            partial(
                subject,
                List.of(
                    result("require-labels", "check", ResultStatus.FAIL),
                    result("disallow-latest", "check", ResultStatus.PASS))));

        ChangeSet changes = a.flush();

        assertThat(changes.creates()).as("%s %s", format, subject.kind()).hasSize(1);
        AggregateReport report = changes.creates().get(0).report();
        assertThat(report.ref())
            .isEqualTo(
                new ReportRef(
                    format.kindFor(subject.namespace()), subject.namespace(), subject.uid()));
        assertThat(report.labels()).containsExactlyEntriesOf(KYVERNO_LABELS);
        assertThat(report.scope()).contains(subject);
        assertThat(report.owner()).contains(subject);
        assertThat(report.results()).hasSize(2);
        assertThat(report.contentHash()).isNotEmpty();
        assertThat(a.aggregates()).containsExactly(report);
      }
    }
  }

  @Test
  void aUidThatIsNotAPlainNameGetsTheDigestedKyvernoName() {
    ReportAggregator a = kyverno(ReportFormat.WGPOLICY);
    a.apply(partial(Subject.of("v1", "Pod", "shop", "web-0", "UID_Web"), List.of(fail())));

    String name = a.flush().creates().get(0).report().ref().name();

    assertThat(name).matches("tally-kyverno-uid-web-[0-9a-f]{32}");
  }

  /**
   * Kyverno never splits a report; Tally keeps its size bound, so a report over {@code maxResults}
   * becomes {@code <uid>} and {@code <uid>.<path>} partitions, all in Kyverno's layout.
   */
  @Test
  void anOversizedReportIsSplitIntoTheUidAndUidDotPathPartitions() {
    ReportAggregator a =
        ReportAggregator.builder()
            .grouping(Grouping.kyvernoPerResource())
            .limits(ReportLimits.defaults().withMaxResults(2))
            .build();
    List<Result> results = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      results.add(result("policy-" + i, "check", ResultStatus.FAIL));
    }
    a.apply(partial(POD, results));

    List<AggregateReport> reports =
        a.flush().creates().stream().map(Change.Create::report).toList();

    assertThat(reports.size()).isGreaterThan(1);
    assertThat(reports).extracting(r -> r.ref().name()).contains(POD.uid());
    assertThat(reports)
        .allSatisfy(
            r -> {
              assertThat(r.ref().name()).matches(POD.uid() + "(\\.[0-9a-f]+)?");
              assertThat(r.labels()).containsExactlyEntriesOf(KYVERNO_LABELS);
              assertThat(r.scope()).contains(POD);
            });
    assertThat(reports.stream().mapToInt(r -> r.results().size()).sum()).isEqualTo(8);
  }

  @Test
  void aResyncTakesOverKyvernosReportDeletesItsOrphansAndLeavesTallysAndForeignOnesAlone() {
    for (ReportFormat format : ReportFormat.values()) {
      ReportKind podKind = format.kindFor("shop");
      ReportKind nodeKind = format.kindFor("");
      ReportKind otherFormatsKind =
          (format == ReportFormat.WGPOLICY ? ReportFormat.OPENREPORTS : ReportFormat.WGPOLICY)
              .kindFor("shop");
      Subject gone = Subject.of("v1", "Pod", "shop", "web-1", "9e8d7c6b-uid-gone");
      Subject tallys = Subject.of("v1", "Pod", "shop", "web-2", "1a2b3c4d-uid-tally");
      Subject foreign = Subject.of("v1", "Pod", "shop", "web-3", "5e6f7a8b-uid-foreign");
      ReportAggregator a = kyverno(format);
      a.apply(partial(POD, List.of(fail())));
      a.apply(partial(NODE, List.of(fail())));
      a.apply(partial(tallys, List.of(fail())));
      a.apply(partial(foreign, List.of(fail())));

      AggregateReport kyvernoPods = observed(podKind, POD, POD.uid(), KYVERNO_LABELS);
      AggregateReport kyvernoOrphan = observed(podKind, gone, gone.uid(), KYVERNO_LABELS);
      AggregateReport otherFormats = observed(otherFormatsKind, gone, gone.uid(), KYVERNO_LABELS);
      AggregateReport tallyAtTheName =
          observed(
              podKind,
              tallys,
              tallys.uid(),
              Map.of(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_VALUE));
      AggregateReport tallyOrphan =
          observed(
              podKind,
              gone,
              "tally-subject-" + gone.uid(),
              Map.of(
                  WireNames.MANAGED_BY_LABEL,
                  WireNames.MANAGED_BY_VALUE,
                  WireNames.GROUPING_LABEL,
                  "kyverno"));
      AggregateReport foreignAtTheName = observed(podKind, foreign, foreign.uid(), Map.of());
      // Kyverno's report of the node, with exactly the content Tally wants: no hash stored
      AggregateReport kyvernoNodeAsWanted =
          a.aggregates().stream()
              .filter(r -> r.ref().kind() == nodeKind)
              .findFirst()
              .orElseThrow()
              .withContentHash("");

      ChangeSet changes =
          a.resync(
              List.of(
                  kyvernoPods,
                  kyvernoOrphan,
                  otherFormats,
                  tallyAtTheName,
                  tallyOrphan,
                  foreignAtTheName,
                  kyvernoNodeAsWanted));

      assertThat(changes.updates())
          .as("%s: Kyverno's report whose content differs is updated in place", format)
          .extracting(Change.Update::ref)
          .containsExactly(kyvernoPods.ref());
      assertThat(changes.updates().get(0).report().labels())
          .containsExactlyEntriesOf(KYVERNO_LABELS);
      assertThat(changes.deletes())
          .as("%s: only the orphan of the aggregator's own kind is deleted", format)
          .extracting(Change.Delete::ref)
          .containsExactly(kyvernoOrphan.ref());
      assertThat(changes.creates())
          .as("%s: names held by Tally's layout or a foreign object are left alone", format)
          .isEmpty();
    }
  }

  @Test
  void aTallyLayoutAggregatorLeavesKyvernoManagedObjectsAlone() {
    for (Grouping grouping : Fixtures.GROUPINGS) {
      ReportAggregator a = ReportAggregator.builder().grouping(grouping).build();
      a.apply(partial(POD, List.of(fail())));
      String wanted = a.aggregates().get(0).ref().name();
      Subject gone = Subject.of("v1", "Pod", "shop", "web-1", "9e8d7c6b-uid-gone");
      AggregateReport kyvernoAtTheName =
          observed(ReportKind.POLICY_REPORT, POD, wanted, KYVERNO_LABELS);
      AggregateReport kyvernoOrphan =
          observed(ReportKind.POLICY_REPORT, gone, gone.uid(), KYVERNO_LABELS);
      Map<String, String> kyvernoWithTallysLabels =
          Map.of(
              WireNames.MANAGED_BY_LABEL,
              WireNames.MANAGED_BY_KYVERNO,
              WireNames.GROUPING_LABEL,
              grouping.id());
      AggregateReport kyvernoWithGroupingLabel =
          observed(ReportKind.POLICY_REPORT, gone, "x-" + gone.uid(), kyvernoWithTallysLabels);

      ChangeSet changes =
          a.resync(List.of(kyvernoAtTheName, kyvernoOrphan, kyvernoWithGroupingLabel));

      assertThat(changes.isEmpty()).as("%s", grouping).isTrue();
    }
  }

  private static Result fail() {
    return result("require-labels", "check", ResultStatus.FAIL);
  }
}
