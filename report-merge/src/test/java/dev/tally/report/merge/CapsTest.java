package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A report a cap refuses changes nothing (docs/DESIGN.md §9, "Caps"), here for the case issue 19
 * named: a uid moving into a namespace that is full. {@code
 * AtomicityProperties.aReportRefusedByACapChangesNeitherTheAggregatesNorTheNextFlush} checks it
 * over random streams.
 */
class CapsTest {
  private static final CoverageKey KEY = CoverageKey.of("kyverno", "require-labels");

  private static PartialReport partial(Subject subject, long at, int results) {
    List<Result> out = new ArrayList<>();
    for (int i = 0; i < results; i++) {
      out.add(
          Result.builder()
              .source(KEY.source())
              .policy(KEY.policy())
              .rule("r" + i)
              .status(ResultStatus.FAIL)
              .build());
    }
    return PartialReport.builder()
        .producer("background")
        .subject(subject)
        .coverage(Set.of(KEY))
        .results(out)
        .observedAt(Timestamp.ofSeconds(at))
        .build();
  }

  @Test
  void aUidMovingToAFullNamespaceIsRefusedAndChangesNothing() {
    for (Grouping grouping : Fixtures.GROUPINGS) {
      ReportAggregator a =
          ReportAggregator.builder()
              .grouping(grouping)
              .caps(InputCaps.defaults().withMaxResultsPerNamespace(3))
              .build();
      Subject inAlpha = Subject.of("v1", "Pod", "alpha", "web-0", "uid-web-0");
      Subject inBeta = Subject.of("v1", "Pod", "beta", "web-0", "uid-web-0");
      a.apply(partial(inAlpha, 10, 2));
      a.apply(partial(Subject.of("v1", "Pod", "beta", "db-0", "uid-db-0"), 10, 3));
      a.flush();
      List<AggregateReport> before = a.aggregates();

      var e =
          catchThrowableOfType(
              () -> a.apply(partial(inBeta, 20, 2)), CapacityExceededException.class);

      assertThat(e).as("%s", grouping).isNotNull();
      assertThat(a.aggregates()).as("%s", grouping).isEqualTo(before);
      assertThat(a.flush().isEmpty()).as("%s", grouping).isTrue();
      assertThat(a.resultCount()).as("%s", grouping).isEqualTo(5);
    }
  }
}
