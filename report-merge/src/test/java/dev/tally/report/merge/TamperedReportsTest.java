package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An owned report whose content no longer hashes to its {@code tally.dev/content-hash} annotation
 * was changed by another hand (a tenant who may write reports in its namespace): a resync rewrites
 * it, whatever the annotation says (docs/DESIGN.md §6, "No-op suppression", and §9).
 */
class TamperedReportsTest {
  private static final Subject POD = Subject.of("v1", "Pod", "shop", "web-0", "uid-web-0");

  private static final List<Grouping> GROUPINGS = new ArrayList<>(Fixtures.GROUPINGS);

  static {
    GROUPINGS.add(Grouping.kyvernoPerResource());
  }

  private static ReportAggregator published(Grouping grouping, ReportFormat format) {
    ReportAggregator a = ReportAggregator.builder().grouping(grouping).format(format).build();
    a.apply(
        PartialReport.builder()
            .producer("background")
            .subject(POD)
            .results(
                List.of(
                    result("require-labels", ResultStatus.FAIL),
                    result("disallow-latest", ResultStatus.PASS)))
            .observedAt(Timestamp.ofSeconds(10))
            .build());
    a.flush();
    return a;
  }

  private static Result result(String policy, ResultStatus status) {
    return Result.builder()
        .source("kyverno")
        .policy(policy)
        .rule("check")
        .status(status)
        .message(policy + " checked")
        .build();
  }

  /** {@code r} with {@code results} and the summary of them, its annotation kept. */
  private static AggregateReport withResults(AggregateReport r, List<Result> results) {
    return new AggregateReport(
        r.ref(),
        r.labels(),
        r.scope(),
        r.owner(),
        r.configuration(),
        results,
        Summary.of(results),
        r.contentHash());
  }

  @Test
  void aResultEditedUnderAKeptContentHashIsRewrittenByTheNextResync() {
    for (ReportFormat format : ReportFormat.values()) {
      for (Grouping grouping : GROUPINGS) {
        ReportAggregator a = published(grouping, format);
        AggregateReport desired = a.aggregates().get(0);
        List<Result> edited = new ArrayList<>(desired.results());
        // a tenant turns its failures into passes (and the other way round, for the test)
        edited.replaceAll(
            x ->
                x.toBuilder()
                    .status(x.status() == ResultStatus.FAIL ? ResultStatus.PASS : ResultStatus.FAIL)
                    .build());
        AggregateReport tampered = withResults(desired, edited);
        assertThat(tampered.contentHash()).isEqualTo(desired.contentHash());

        List<AggregateReport> observed = new ArrayList<>(a.aggregates());
        observed.set(0, tampered);

        ChangeSet changes = a.resync(observed);

        assertThat(changes.changes())
            .as("%s %s", format, grouping)
            .singleElement()
            .isEqualTo(new Change.Update(desired, ContentHash.of(tampered)));
        assertThat(ReportDiff.apply(observed, changes)).isEqualTo(a.aggregates());
        assertThat(a.flush().isEmpty()).isTrue();
      }
    }
  }

  @Test
  void aResultRemovedOrASummaryChangedUnderAKeptContentHashIsRewrittenToo() {
    ReportAggregator a = published(Grouping.perNamespace(), ReportFormat.WGPOLICY);
    AggregateReport desired = a.aggregates().get(0);
    AggregateReport removed = withResults(desired, desired.results().subList(0, 1));
    AggregateReport summary =
        new AggregateReport(
            desired.ref(),
            desired.labels(),
            desired.scope(),
            desired.owner(),
            desired.configuration(),
            desired.results(),
            new Summary(9, 0, 0, 0, 0),
            desired.contentHash());

    assertThat(a.resync(List.of(removed)).updates()).hasSize(1);
    assertThat(a.resync(List.of(summary)).updates()).hasSize(1);
  }

  @Test
  void aContentHashAnnotationEditedAloneIsRewrittenAndAnIntactReportIsLeftAlone() {
    ReportAggregator a = published(Grouping.perNamespace(), ReportFormat.WGPOLICY);
    AggregateReport desired = a.aggregates().get(0);

    assertThat(a.resync(List.of(desired.withContentHash("0123456789abcdef"))).updates()).hasSize(1);
    assertThat(a.resync(List.of(desired)).isEmpty()).isTrue();
    assertThat(ContentHash.isIntact(desired)).isTrue();
    assertThat(ContentHash.isIntact(desired.withContentHash("0123456789abcdef"))).isFalse();
    assertThat(ContentHash.isIntact(desired.withContentHash(""))).isFalse();
  }
}
