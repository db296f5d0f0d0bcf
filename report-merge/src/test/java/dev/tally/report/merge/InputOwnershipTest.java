package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Aggregators of different inputs in one cluster (docs/DESIGN.md §4.3, §4.4, §6.8), through the
 * public API: with the same grouping they write disjoint names, and neither's resync or flush
 * updates or deletes the other's aggregates, while the default input writes exactly what it wrote
 * before inputs had names.
 */
class InputOwnershipTest {
  private static final Subject POD = Subject.of("v1", "Pod", "shop", "web-0", "uid-web-0");
  private static final Subject CONFIG = Subject.of("v1", "ConfigMap", "shop", "app", "uid-app");
  private static final Subject NODE = Subject.of("v1", "Node", "", "node-1", "uid-node-1");

  private static ReportAggregator aggregator(Grouping grouping, ReportFormat format, String input) {
    return ReportAggregator.builder()
        .grouping(grouping)
        .format(format)
        .limits(ReportLimits.defaults().withMaxResults(2))
        .input(input)
        .build();
  }

  /** Tally's own input: what the cluster admin's {@code tally} release aggregates. */
  private static PartialReport tallys(Subject subject, long at, ResultStatus... statuses) {
    return partial("admission", "kyverno", "require-labels", subject, at, statuses);
  }

  /** trivy-operator's config audit, as the {@code trivy} release's input states it. */
  private static PartialReport trivys(Subject subject, long at, ResultStatus... statuses) {
    return partial("trivy-operator/config-audit", "trivy", "config-audit", subject, at, statuses);
  }

  private static PartialReport partial(
      String producer,
      String source,
      String policy,
      Subject subject,
      long at,
      ResultStatus... statuses) {
    List<Result> results = new ArrayList<>();
    for (int i = 0; i < statuses.length; i++) {
      results.add(
          Result.builder()
              .source(source)
              .policy(policy)
              .rule("check-" + i)
              .status(statuses[i])
              .build());
    }
    return PartialReport.builder()
        .producer(producer)
        .subject(subject)
        .coverage(Set.of(CoverageKey.of(source, policy)))
        .results(results)
        .observedAt(Timestamp.ofSeconds(at))
        .build();
  }

  private static Set<ReportRef> refs(List<AggregateReport> reports) {
    Set<ReportRef> refs = new HashSet<>();
    reports.forEach(r -> refs.add(r.ref()));
    return refs;
  }

  private static Set<ReportRef> touched(ChangeSet changes) {
    Set<ReportRef> refs = new HashSet<>();
    changes.changes().forEach(c -> refs.add(c.ref()));
    return refs;
  }

  /**
   * The reviewer's case, for every grouping and format: a {@code tally} and a {@code trivy}
   * aggregator write into one cluster. Their names are disjoint; each one's resync, first with its
   * state and then from scratch (a restart), after its results are retracted (its groups empty) and
   * after the other's changed, writes and deletes its own objects only.
   */
  @Test
  void twoInputsOfOneGroupingWriteDisjointNamesAndNeitherResyncTouchesTheOthers() {
    for (Grouping grouping : Fixtures.GROUPINGS) {
      for (ReportFormat format : ReportFormat.values()) {
        ReportAggregator tally = aggregator(grouping, format, AggregatorConfig.DEFAULT_INPUT);
        ReportAggregator trivy = aggregator(grouping, format, "trivy");
        for (Subject s : List.of(POD, CONFIG, NODE)) {
          tally.apply(tallys(s, 10, ResultStatus.FAIL, ResultStatus.FAIL, ResultStatus.PASS));
          trivy.apply(trivys(s, 10, ResultStatus.FAIL, ResultStatus.FAIL, ResultStatus.FAIL));
        }
        List<AggregateReport> cluster = ReportDiff.apply(List.of(), tally.flush());
        cluster = ReportDiff.apply(cluster, trivy.flush());
        Set<ReportRef> tallys = refs(tally.aggregates());
        Set<ReportRef> trivys = refs(trivy.aggregates());
        String what = grouping + ", " + format.name();
        assertThat(tallys).as(what).isNotEmpty().doesNotContainAnyElementsOf(trivys);
        assertThat(trivys).as(what).isNotEmpty();
        assertThat(refs(cluster)).as(what).hasSize(tallys.size() + trivys.size());

        // each one's resync finds its own objects as it wrote them, and leaves the other's alone
        assertThat(tally.resync(cluster).isEmpty()).as(what).isTrue();
        assertThat(trivy.resync(cluster).isEmpty()).as(what).isTrue();

        // restarted: a fresh aggregator of each input, fed nothing yet, deletes its own only
        ChangeSet freshTrivy = aggregator(grouping, format, "trivy").resync(cluster);
        assertThat(touched(freshTrivy)).as(what).isEqualTo(trivys);
        assertThat(freshTrivy.deletes()).as(what).hasSize(trivys.size());
        ChangeSet freshTally =
            aggregator(grouping, format, AggregatorConfig.DEFAULT_INPUT).resync(cluster);
        assertThat(touched(freshTally)).as(what).isEqualTo(tallys);

        // trivy's results change and then are all retracted; tally's are untouched throughout
        for (Subject s : List.of(POD, CONFIG, NODE)) {
          trivy.apply(trivys(s, 20, ResultStatus.FAIL));
        }
        ChangeSet changed = trivy.flush();
        assertThat(touched(changed)).as(what).isNotEmpty().doesNotContainAnyElementsOf(tallys);
        cluster = ReportDiff.apply(cluster, changed);
        for (Subject s : List.of(POD, CONFIG, NODE)) {
          trivy.apply(trivys(s, 30));
        }
        Set<ReportRef> trivysNow = refs(cluster);
        trivysNow.removeAll(tallys);
        ChangeSet retracted = trivy.flush();
        assertThat(touched(retracted)).as(what).isEqualTo(trivysNow);
        assertThat(retracted.deletes()).as(what).hasSize(trivysNow.size());
        cluster = ReportDiff.apply(cluster, retracted);
        assertThat(cluster).as(what).isEqualTo(tally.aggregates());

        // tally's resync still has nothing to do, and trivy's finds nothing of its own to delete
        assertThat(tally.resync(cluster).isEmpty()).as(what).isTrue();
        assertThat(trivy.resync(cluster).isEmpty()).as(what).isTrue();
      }
    }
  }

  /**
   * An aggregate without the input label is the default input's, as every aggregate written before
   * inputs had names is: another input's aggregator never deletes it, the default one does when it
   * is an orphan of its grouping; and neither deletes an orphan labelled with the other's input.
   */
  @Test
  void anAggregateWithoutTheInputLabelIsTheDefaultInputs() {
    ReportAggregator tally = aggregator(Grouping.perNamespace(), ReportFormat.WGPOLICY, "tally");
    ReportAggregator trivy = aggregator(Grouping.perNamespace(), ReportFormat.WGPOLICY, "trivy");
    tally.apply(tallys(POD, 10, ResultStatus.FAIL));
    trivy.apply(trivys(POD, 10, ResultStatus.FAIL));
    AggregateReport tallyOrphan = renamed(tally.aggregates().get(0), "tally-namespace-old");
    AggregateReport trivyOrphan = renamed(trivy.aggregates().get(0), "tally-trivy--namespace-old");
    assertThat(tallyOrphan.labels()).doesNotContainKey(WireNames.INPUT_LABEL);
    assertThat(trivyOrphan.labels()).containsEntry(WireNames.INPUT_LABEL, "trivy");
    List<AggregateReport> observed = List.of(tallyOrphan, trivyOrphan);

    assertThat(tally.resync(observed).deletes())
        .extracting(Change::ref)
        .containsExactly(tallyOrphan.ref());
    assertThat(trivy.resync(observed).deletes())
        .extracting(Change::ref)
        .containsExactly(trivyOrphan.ref());
  }

  /**
   * Another input's aggregate at a desired name (one written by hand, say: names of inputs never
   * meet) is as foreign as another tool's: the resync skips it, no flush writes over it or deletes
   * it, and the name is taken once it is free.
   */
  @Test
  void anotherInputsAggregateAtADesiredNameIsNeverWrittenOver() {
    ReportAggregator trivy = aggregator(Grouping.perNamespace(), ReportFormat.WGPOLICY, "trivy");
    trivy.apply(trivys(POD, 10, ResultStatus.FAIL));
    AggregateReport desired = trivy.aggregates().get(0);
    Map<String, String> labels = new HashMap<>(desired.labels());
    labels.put(WireNames.INPUT_LABEL, "kyverno");
    AggregateReport kyvernos = relabelled(desired, labels);

    assertThat(trivy.resync(List.of(kyvernos)).isEmpty()).isTrue();
    trivy.apply(trivys(POD, 20, ResultStatus.PASS));
    assertThat(trivy.flush().isEmpty()).isTrue();
    trivy.apply(trivys(POD, 30));
    assertThat(trivy.flush().isEmpty()).isTrue();
    trivy.apply(trivys(POD, 40, ResultStatus.FAIL));

    ChangeSet freed = trivy.resync(List.of());

    assertThat(freed.creates()).extracting(Change::ref).containsExactly(desired.ref());
  }

  /**
   * The default input, named or not, writes what Tally wrote before inputs had names: the same
   * names, exactly the three labels, the same content (and so content hashes): nothing is rewritten
   * on upgrade. Another input's aggregates carry its label and its name.
   */
  @Test
  void theDefaultInputWritesWhatItAlwaysWroteAndAnotherInputIsNamedAndLabelled() {
    ReportAggregator unnamed = ReportAggregator.builder().build();
    ReportAggregator named = ReportAggregator.builder().input("tally").build();
    ReportAggregator trivy = ReportAggregator.builder().input("trivy").build();
    for (ReportAggregator a : List.of(unnamed, named, trivy)) {
      a.apply(tallys(POD, 10, ResultStatus.FAIL));
      a.apply(tallys(NODE, 10, ResultStatus.FAIL));
    }
    assertThat(unnamed.config().input()).isEqualTo(AggregatorConfig.DEFAULT_INPUT);
    assertThat(unnamed.config().hasDefaultInput()).isTrue();
    assertThat(named.aggregates()).isEqualTo(unnamed.aggregates());
    assertThat(unnamed.aggregates())
        .extracting(r -> r.ref().name())
        .containsExactly("tally-namespace-all", "tally-namespace-all");
    assertThat(unnamed.aggregates())
        .allSatisfy(
            r ->
                assertThat(r.labels().keySet())
                    .containsExactlyInAnyOrder(
                        WireNames.MANAGED_BY_LABEL,
                        WireNames.GROUP_LABEL,
                        WireNames.GROUPING_LABEL));
    // pinned: the content hash the aggregate had before inputs had names
    assertThat(unnamed.flush().creates().get(0).report().contentHash())
        .isEqualTo(PINNED_CONTENT_HASH);

    assertThat(trivy.aggregates())
        .extracting(r -> r.ref().name())
        .containsExactly("tally-trivy--namespace-all", "tally-trivy--namespace-all");
    assertThat(trivy.aggregates())
        .allSatisfy(
            r ->
                assertThat(r.labels())
                    .containsEntry(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_VALUE)
                    .containsEntry(WireNames.GROUPING_LABEL, "namespace")
                    .containsEntry(WireNames.INPUT_LABEL, "trivy"));
    assertThat(trivy.aggregates().get(0).labels().get(WireNames.GROUP_LABEL))
        .isNotEqualTo(unnamed.aggregates().get(0).labels().get(WireNames.GROUP_LABEL));
  }

  /** The content hash of the first aggregate of the test above, as Tally computed it before. */
  private static final String PINNED_CONTENT_HASH = "5740525781ec5a3c";

  /**
   * Kyverno's layout names no input: its reports are named and labelled as Kyverno's, whatever the
   * input, and every one of the format's kind is the aggregator's.
   */
  @Test
  void inKyvernosLayoutTheInputChangesNothing() {
    ReportAggregator unnamed =
        ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build();
    ReportAggregator kyverno =
        ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).input("kyverno").build();
    for (ReportAggregator a : List.of(unnamed, kyverno)) {
      a.apply(tallys(POD, 10, ResultStatus.FAIL));
    }
    assertThat(kyverno.aggregates()).isEqualTo(unnamed.aggregates());
    assertThat(kyverno.aggregates().get(0).labels())
        .containsOnlyKeys(WireNames.MANAGED_BY_LABEL)
        .containsEntry(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_KYVERNO);
    // an orphan Kyverno (or Tally for any input) wrote in that layout is this aggregator's
    AggregateReport orphan = renamed(kyverno.aggregates().get(0), "uid-gone");
    assertThat(kyverno.resync(List.of(orphan)).deletes())
        .extracting(Change::ref)
        .containsExactly(orphan.ref());
  }

  @Test
  void anInputNameThatCannotBeWrittenIntoNamesAndLabelsIsRefused() {
    for (String bad : List.of("", "Trivy", "my scanner", "-trivy", "trivy-", "a--b", "a.b")) {
      assertThatThrownBy(() -> ReportAggregator.builder().input(bad))
          .as("'%s'", bad)
          .isInstanceOf(InvalidReportException.class)
          .hasMessageContaining("input");
    }
    assertThatThrownBy(() -> ReportAggregator.builder().input("a".repeat(64)))
        .isInstanceOf(InvalidReportException.class);
    assertThat(ReportAggregator.builder().input("a".repeat(63)).config().input()).hasSize(63);
    assertThat(ReportAggregator.builder().input("my-scanner-2").config().input())
        .isEqualTo("my-scanner-2");
  }

  private static AggregateReport renamed(AggregateReport r, String name) {
    return new AggregateReport(
        new ReportRef(r.ref().kind(), r.ref().namespace(), name),
        r.labels(),
        r.scope(),
        r.owner(),
        r.configuration(),
        r.results(),
        r.summary(),
        r.contentHash());
  }

  private static AggregateReport relabelled(AggregateReport r, Map<String, String> labels) {
    return new AggregateReport(
        r.ref(),
        labels,
        r.scope(),
        r.owner(),
        r.configuration(),
        r.results(),
        r.summary(),
        r.contentHash());
  }
}
