package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's snippet, compiled and run: if this changes, change the README with it. */
class ReadmeSnippetTest {

  @Test
  void theReadmeSnippetAggregatesAndRetracts() {
    // --- README snippet start ---
    ReportAggregator aggregator =
        ReportAggregator.builder()
            .grouping(Grouping.perNamespace())
            .limits(ReportLimits.defaults().withMaxResults(1000))
            .build();

    Subject pod = Subject.of("v1", "Pod", "shop", "web-0", "6f1c2a9e-0d4b-4c1e-9a57-3b2f8e1d0c44");
    Result fail =
        Result.builder()
            .source("kyverno")
            .policy("require-labels")
            .rule("check-team")
            .status(ResultStatus.FAIL)
            .message("label 'team' is required")
            .build();
    aggregator.apply(
        PartialReport.builder()
            .producer("admission")
            .subject(pod)
            .results(List.of(fail))
            .observedAt(Timestamp.ofSeconds(1_700_000_000))
            .build());
    ChangeSet first = aggregator.flush(); // one Create: PolicyReport shop/tally-namespace-all

    // a later background scan covers the policy and finds nothing wrong: the failure is retracted
    aggregator.apply(
        PartialReport.builder()
            .producer("background")
            .subject(pod)
            .coverage(java.util.Set.of(fail.coverageKey()))
            .observedAt(Timestamp.ofSeconds(1_700_000_060))
            .build());
    ChangeSet second = aggregator.flush(); // one Delete: the group is empty now
    ChangeSet third = aggregator.flush(); // empty: nothing changed, nothing to write
    // --- README snippet end ---

    assertThat(first.creates()).hasSize(1);
    assertThat(first.creates().get(0).report().summary().fail()).isEqualTo(1);
    assertThat(first.creates().get(0).ref().name()).isEqualTo("tally-namespace-all");
    assertThat(second.deletes()).hasSize(1);
    assertThat(third.isEmpty()).isTrue();
  }
}
