package dev.tally.report.merge.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The API budget is never exceeded, whatever the pattern of requests. */
class TokenBucketProperties {
  @Test
  void grantedRequestsStayWithinBurstPlusRateInEveryWindow() {
    qt().withFixedSeed(0xb0c4e7L)
        .withExamples(1000)
        .forAll(
            integers().between(1, 50),
            integers().between(1, 20),
            lists().of(integers().between(0, 400_000_000)).ofSizeBetween(1, 200))
        .checkAssert(
            (qps, burst, gaps) -> {
              ApiBudget budget = new ApiBudget(qps, burst);
              TokenBucket bucket = new TokenBucket(budget, 0);
              long now = 0;
              List<Long> proceedAt = new ArrayList<>();
              for (int gap : gaps) {
                now += gap;
                long wait = bucket.reserve(now);
                assertThat(wait).isNotNegative();
                now += wait; // the caller waits, then proceeds
                proceedAt.add(now);
              }
              for (int i = 0; i < proceedAt.size(); i++) {
                for (int j = i; j < proceedAt.size(); j++) {
                  long window = proceedAt.get(j) - proceedAt.get(i);
                  // small slack for the nanosecond rounding of waits
                  assertThat((long) (j - i + 1))
                      .isLessThanOrEqualTo(budget.maxRequestsIn(window + 1));
                }
              }
            });
  }

  @Test
  void membersShareTheGlobalRate() {
    qt().withFixedSeed(0xb0c4e7L)
        .withExamples(1000)
        .forAll(integers().between(1, 1000), integers().between(1, 100), integers().between(1, 64))
        .checkAssert(
            (qps, burst, members) -> {
              ApiBudget global = new ApiBudget(qps, burst);
              ApiBudget share = global.share(members);
              assertThat(share.qps() * members)
                  .isCloseTo(qps, org.assertj.core.data.Offset.offset(1e-9 * qps));
              assertThat(share.burst()).isGreaterThanOrEqualTo(1);
              if (members <= burst) {
                assertThat((long) share.burst() * members).isLessThanOrEqualTo(burst);
              }
            });
  }

  @Test
  void aSmallerShareTakesEffectAtOnce() {
    TokenBucket bucket = new TokenBucket(new ApiBudget(10, 10), 0);
    bucket.setBudget(new ApiBudget(10, 10).share(5), 0);
    assertThat(bucket.tryAcquire(0)).isTrue();
    assertThat(bucket.tryAcquire(0)).isTrue();
    assertThat(bucket.tryAcquire(0)).isFalse();
    assertThat(bucket.reserve(0)).isEqualTo(500_000_000L); // 2 qps: one token every 0.5 s
  }
}
