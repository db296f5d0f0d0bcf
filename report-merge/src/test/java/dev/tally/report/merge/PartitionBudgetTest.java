package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.EncodedSize;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.partition.PartitionBudget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The bytes a partition leaves for results are {@code maxBytes} less its group's real envelope; a
 * result no partition could hold is refused when applied.
 */
class PartitionBudgetTest {
  private static final String WIDE = "\u0001".repeat(Subject.MAX_FIELD);

  private static AggregatorConfig config(Grouping grouping, ReportFormat format, int maxBytes) {
    return new AggregatorConfig(
        grouping,
        format,
        ReportLimits.defaults().withMaxBytes(maxBytes),
        InputCaps.defaults(),
        Duration.ofHours(1).toSeconds());
  }

  private static PartitionBudget budget(AggregatorConfig config) {
    return new PartitionBudget(
        config,
        config.format() == ReportFormat.OPENREPORTS
            ? Optional.of(config.limits().configuration())
            : Optional.empty());
  }

  private static Result result(String policy, String message) {
    return Result.builder().policy(policy).status(ResultStatus.FAIL).message(message).build();
  }

  private static PartialReport partial(Subject subject, List<Result> results, long at) {
    return PartialReport.builder()
        .producer("background")
        .subject(subject)
        .results(results)
        .observedAt(Timestamp.ofSeconds(at))
        .build();
  }

  /** A custom grouping that, like {@link Grouping#perSubject()}, scopes reports to a subject. */
  private static Grouping scopedWithLongestId() {
    return new Grouping() {
      @Override
      public String groupOf(Subject subject, dev.tally.report.api.CoverageKey key) {
        return subject.uid();
      }

      @Override
      public String id() {
        return "g".repeat(PartitionBudget.MAX_LABEL_VALUE);
      }

      @Override
      public boolean scopedToSubject() {
        return true;
      }
    };
  }

  @Test
  void theSmallestMaxBytesLeavesThreeQuartersForResultsBesideTheLargestEnvelope() {
    List<Grouping> groupings =
        List.of(
            Grouping.perSubject(),
            Grouping.perNamespace(),
            Grouping.perNamespaceAndPolicy(),
            scopedWithLongestId());
    for (Grouping grouping : groupings) {
      for (ReportFormat format : ReportFormat.values()) {
        var config = config(grouping, format, ReportLimits.MIN_MAX_BYTES);
        // the widest scoped envelope, two subjects of 253-char fields escaped to 6 bytes a
        // char, takes about 12 KiB; that of an unscoped group about 1 KiB
        assertThat(budget(config).room())
            .as("%s %s", grouping, format)
            .isGreaterThan(ReportLimits.MIN_MAX_BYTES * 3L / 4);
      }
    }
  }

  @Test
  void partitionsOfTheWidestSubjectFitTheSmallestMaxBytes() {
    var config =
        config(Grouping.perSubject(), ReportFormat.OPENREPORTS, ReportLimits.MIN_MAX_BYTES);
    var a = Fixtures.aggregator(config);
    Subject widest =
        PartitionBudget.widestSubject(PartitionBudget.widestNamespace()).withUid("uid-1");
    List<Result> results = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      results.add(result("p", i + " " + "\u20ac\"".repeat(200)));
    }
    a.apply(partial(widest, results, 1));
    List<AggregateReport> partitions = a.aggregates();
    assertThat(partitions).hasSizeGreaterThan(3);
    for (AggregateReport p : partitions) {
      assertThat(EncodedSize.of(p)).isLessThanOrEqualTo(ReportLimits.MIN_MAX_BYTES);
    }
  }

  @Test
  void aResultUpToTheRoomIsAcceptedAndOneByteMoreIsRefusedNamingItsLargestField() {
    var config = config(Grouping.perSubject(), ReportFormat.WGPOLICY, ReportLimits.MIN_MAX_BYTES);
    long room = budget(config).room();
    Subject pod = Subject.of("v1", "Pod", "team-a", "web-0", "uid-web-0");
    // a result of exactly room - 1 bytes (plus its comma: room), and one of a byte more
    Result largest = resultOfBytes(pod, room - 1);
    Result tooLarge = resultOfBytes(pod, room);

    var a = Fixtures.aggregator(config);
    a.apply(partial(pod, List.of(largest), 1));
    assertThat(a.aggregates()).hasSize(1);
    assertThat(EncodedSize.of(a.aggregates().get(0)))
        .isLessThanOrEqualTo(ReportLimits.MIN_MAX_BYTES);
    List<AggregateReport> before = a.aggregates();
    long count = a.resultCount();

    var e =
        catchThrowableOfType(
            InvalidReportException.class,
            () -> a.apply(partial(pod, List.of(result("q", "fine"), tooLarge), 2)));
    assertThat(e).isNotNull();
    assertThat(e.field()).isEqualTo("results[1].message");
    assertThat(e.reason())
        .startsWith("makes the result " + room + " bytes of JSON, more than the " + (room - 1))
        .contains("limits.maxBytes is " + ReportLimits.MIN_MAX_BYTES);
    // refused whole: nothing changed
    assertThat(a.resultCount()).isEqualTo(count);
    assertThat(a.aggregates()).isEqualTo(before);
  }

  @Test
  void aResultOutsideTheStatusFilterIsNotMeasured() {
    var config =
        new AggregatorConfig(
            Grouping.perNamespace(),
            ReportFormat.WGPOLICY,
            ReportLimits.defaults()
                .withMaxBytes(ReportLimits.MIN_MAX_BYTES)
                .withStatusFilter(Set.of(ResultStatus.PASS)),
            InputCaps.defaults(),
            60);
    Subject pod = Subject.of("v1", "Pod", "team-a", "web-0", "uid-web-0");
    var a = Fixtures.aggregator(config);
    // never written, so its size does not matter
    a.apply(partial(pod, List.of(resultOfBytes(pod, budget(config).room() + 100)), 1));
    assertThat(a.resultCount()).isEqualTo(1);
    assertThat(a.aggregates()).isEmpty();
  }

  /**
   * A FAIL result about {@code pod} whose JSON, as the aggregator holds it, takes {@code bytes}.
   */
  private static Result resultOfBytes(Subject pod, long bytes) {
    List<Subject> subjectOnly = List.of(pod);
    long one = EncodedSize.of(MergeRule.aboutSubject(result("p", "a"), subjectOnly));
    long missing = bytes - one; // each U+0001 adds 6 bytes, each 'a' 1
    String message = "\u0001".repeat((int) (missing / 6)) + "a".repeat((int) (missing % 6) + 1);
    Result r = result("p", message);
    assertThat(EncodedSize.of(MergeRule.aboutSubject(r, subjectOnly))).isEqualTo(bytes);
    return r;
  }

  @Test
  void aWiderScopeSplitsThePartitionsAgainAndTheyStayAFunctionOfContent() {
    var config = config(Grouping.perSubject(), ReportFormat.WGPOLICY, ReportLimits.MIN_MAX_BYTES);
    // one uid, reported under two subjects: the wide one sorts first, so it becomes the scope
    Subject narrow = Subject.of("v1", "Pod", "team-a", "web-0", "uid-1");
    Subject wide = new Subject(WIDE, WIDE, "team-a", WIDE, "uid-1");
    List<Result> many = new ArrayList<>();
    for (int i = 0; i < 160; i++) {
      many.add(result("p" + (i % 40), i + " " + "\u20ac".repeat(300)));
    }
    PartialReport first =
        PartialReport.builder()
            .producer("admission")
            .subject(narrow)
            .results(many)
            .observedAt(Timestamp.ofSeconds(1))
            .build();
    PartialReport second = partial(wide, List.of(result("q", "wide")), 2);

    var a = Fixtures.aggregator(config);
    a.apply(first);
    a.flush();
    a.apply(second);
    a.flush();
    List<AggregateReport> partitions = a.aggregates();
    assertThat(partitions).hasSizeGreaterThan(1);
    for (AggregateReport p : partitions) {
      assertThat(p.scope()).contains(wide);
      assertThat(EncodedSize.of(p)).isLessThanOrEqualTo(ReportLimits.MIN_MAX_BYTES);
    }
    var reversed = Fixtures.aggregator(config);
    reversed.apply(second);
    reversed.apply(first);
    assertThat(reversed.aggregates()).isEqualTo(partitions);
  }
}
