package dev.tally.report.merge.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.Fixtures;
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
  void aSkewBelowASecondIsKeptToTheNanosecond() {
    // before, the skew was cut to whole seconds: 500 ms allowed nothing ahead at all
    ClockRule halfASecond = ClockRule.allowing(Duration.ofMillis(500));
    PartialReport aNanosecondAhead = observedAt(new Timestamp(NOW.seconds(), 1), NOW);
    assertThat(halfASecond.check(aNanosecondAhead, NOW)).isSameAs(aNanosecondAhead);
    PartialReport beyond = observedAt(new Timestamp(NOW.seconds(), 500_000_001), NOW);
    assertThatThrownBy(() -> halfASecond.check(beyond, NOW))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("skew of 0.5 s");
    // and 1.5 s allows 1.2 s ahead
    PartialReport ahead = observedAt(new Timestamp(NOW.seconds() + 1, 200_000_000), NOW);
    assertThat(ClockRule.allowing(Duration.ofMillis(1_500)).check(ahead, NOW)).isSameAs(ahead);
  }

  @Test
  void aSkewPastYear9999AcceptsUpToTheLastInstantTheFormatsHold() {
    ClockRule forever = ClockRule.allowing(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
    assertThat(forever.latestAccepted(NOW))
        .isEqualTo(new Timestamp(Timestamp.MAX_SECONDS, 999_999_999));
    PartialReport last = observedAt(NOW, Timestamp.ofSeconds(Timestamp.MAX_SECONDS));
    assertThat(forever.check(last, NOW)).isSameAs(last);
  }

  @Test
  void anEvaluationIsAcceptedExactlyWhenItIsNoFurtherAheadThanTheSkew() {
    // skews and offsets to the nanosecond, up to ten minutes, offsets behind the clock too
    long tenMinutes = Duration.ofMinutes(10).toNanos();
    Fixtures.theory()
        .forAll(
            longs().between(0, tenMinutes),
            longs().between(-1_000_000_000L, tenMinutes + 1_000_000_000L),
            integers().between(0, 999_999_999))
        .checkAssert(
            (skew, offset, nowNanos) -> {
              Timestamp now = new Timestamp(NOW.seconds(), nowNanos);
              long at = now.seconds() * 1_000_000_000L + now.nanos() + offset;
              Timestamp stated =
                  new Timestamp(
                      Math.floorDiv(at, 1_000_000_000L), (int) Math.floorMod(at, 1_000_000_000L));
              PartialReport p = observedAt(stated, now);
              ClockRule rule = ClockRule.allowing(Duration.ofNanos(skew));
              if (offset <= skew) {
                assertThat(rule.check(p, now)).isSameAs(p);
              } else {
                assertThatThrownBy(() -> rule.check(p, now))
                    .isInstanceOf(InvalidReportException.class)
                    .satisfies(
                        e ->
                            assertThat(((InvalidReportException) e).field())
                                .isEqualTo("observedAt"));
              }
            });
  }

  @Test
  void aNegativeSkewIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> ClockRule.allowing(Duration.ofSeconds(-1)))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("maxClockSkew");
  }
}
