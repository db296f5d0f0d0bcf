package dev.tally.report.merge.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The clock rule (docs/DESIGN.md, "Trust model"): nothing from the future is accepted. */
class ClockRuleTest {
  private static final Subject POD = Subject.of("v1", "Pod", "shop", "web-0", "uid-1");
  private static final Timestamp NOW = Timestamp.ofSeconds(1_800_000_000L);
  private static final ClockRule RULE = ClockRule.allowing(Duration.ofMinutes(5));

  private static PartialReport observedAt(Timestamp at, Timestamp resultAt) {
    return PartialReport.builder()
        .producer("admission")
        .subject(POD)
        .results(
            List.of(
                Result.builder().source("kyverno").policy("p").status(ResultStatus.PASS).build(),
                Result.builder()
                    .source("kyverno")
                    .policy("q")
                    .status(ResultStatus.FAIL)
                    .timestamp(resultAt)
                    .build()))
        .observedAt(at)
        .build();
  }

  @Test
  void anEvaluationWithinTheSkewIsAcceptedAsItIs() {
    PartialReport p = observedAt(NOW.plusSeconds(300), NOW.plusSeconds(300));
    assertThat(RULE.check(p, NOW)).isSameAs(p);
  }

  @Test
  void anEvaluationObservedBeyondTheSkewIsRefusedNamingObservedAt() {
    PartialReport p = observedAt(new Timestamp(NOW.seconds() + 300, 1), NOW);
    assertThatThrownBy(() -> RULE.check(p, NOW))
        .isInstanceOf(InvalidReportException.class)
        .satisfies(e -> assertThat(((InvalidReportException) e).field()).isEqualTo("observedAt"))
        .hasMessageContaining("300 s");
  }

  @Test
  void aResultStampedInYear9999IsRefusedNamingTheResult() {
    PartialReport p = observedAt(NOW, Timestamp.ofSeconds(Timestamp.MAX_SECONDS));
    assertThatThrownBy(() -> RULE.check(p, NOW))
        .isInstanceOf(InvalidReportException.class)
        .satisfies(
            e ->
                assertThat(((InvalidReportException) e).field()).isEqualTo("results[1].timestamp"));
  }

  @Test
  void aSeedIsObservedNoLaterThanItIsRead() {
    PartialReport ahead = observedAt(NOW.plusSeconds(60), NOW.plusSeconds(60));
    assertThat(RULE.seed(ahead, NOW).observedAt()).isEqualTo(NOW);
    PartialReport before = observedAt(Timestamp.ofSeconds(5), Timestamp.ofSeconds(5));
    assertThat(RULE.seed(before, NOW)).isSameAs(before);
  }

  @Test
  void aNegativeSkewIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> ClockRule.allowing(Duration.ofSeconds(-1)))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("maxClockSkew");
  }
}
