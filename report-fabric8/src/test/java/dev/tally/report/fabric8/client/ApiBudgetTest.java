package dev.tally.report.fabric8.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.fabric8.RecordingSleeper;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ApiBudgetTest {

  @Test
  void burstIsFreeThenRequestsAreSpacedAtTheRate() throws InterruptedException {
    var now = new AtomicLong();
    var sleeper = new RecordingSleeper();
    var budget = new ApiBudget(10, 3, now::get, sleeper);
    for (int i = 0; i < 5; i++) {
      budget.acquire();
    }
    // three from the burst, then 100 ms and 200 ms: reservations queue behind each other
    assertThat(sleeper.sleeps).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
  }

  @Test
  void tokensRefillWithTimeUpToTheBurst() {
    var now = new AtomicLong();
    var budget = new ApiBudget(10, 2, now::get, new RecordingSleeper());
    budget.reserve();
    budget.reserve();
    assertThat(budget.reserve()).isEqualTo(Duration.ofMillis(100));
    now.addAndGet(Duration.ofSeconds(60).toNanos());
    assertThat(budget.reserve()).isZero();
    assertThat(budget.reserve()).isZero();
    assertThat(budget.reserve()).as("refilled to the burst, no more").isPositive();
  }

  @Test
  void theRateDoublesEachSecondWhileCallersWaitAndTheServerAnswersUpToTheCeiling() {
    var now = new AtomicLong();
    var budget = new ApiBudget(10, 80, 1, now::get, new RecordingSleeper());
    // one second of saturated demand: every reservation waits, every request is answered
    long[] rates = new long[5];
    for (int second = 0; second < 5; second++) {
      long end = now.get() + Duration.ofSeconds(1).toNanos();
      while (now.get() < end) {
        Duration wait = budget.reserve();
        now.addAndGet(Math.max(wait.toNanos(), 1));
        budget.answered();
      }
      rates[second] = Math.round(budget.qps());
    }
    assertThat(rates[0])
        .as("slow start: one more per answer, twice the rate in a second")
        .isBetween(19L, 21L);
    assertThat(rates[1]).isBetween(38L, 42L);
    assertThat(rates[3]).as("never above the ceiling").isEqualTo(80L);
    assertThat(rates[4]).isEqualTo(80L);
  }

  @Test
  void theRateDoesNotGrowWithoutDemand() {
    var now = new AtomicLong();
    var budget = new ApiBudget(10, 100, 5, now::get, new RecordingSleeper());
    for (int i = 0; i < 100; i++) {
      assertThat(budget.reserve()).as("one request a second never waits").isZero();
      budget.answered();
      now.addAndGet(Duration.ofSeconds(1).toNanos());
    }
    assertThat(budget.qps()).isEqualTo(10.0);
  }

  @Test
  void a429HalvesTheRateOnceASecondHoldsEveryoneForItsRetryAfterThenGrowsOnePerSecond() {
    var now = new AtomicLong();
    var budget = new ApiBudget(64, 1000, 1, now::get, new RecordingSleeper());
    budget.throttled(Duration.ofSeconds(2));
    budget.throttled(Duration.ofSeconds(1));
    budget.throttled(Duration.ZERO);
    assertThat(budget.qps()).as("a volley of 429s from one overload counts once").isEqualTo(32.0);
    assertThat(budget.reserve())
        .as("nobody goes before the Retry-After has passed")
        .isEqualTo(Duration.ofSeconds(2));
    now.addAndGet(Duration.ofSeconds(2).toNanos());
    // saturated for ten seconds after the 429: additive increase, about one per second
    long end = now.get() + Duration.ofSeconds(10).toNanos();
    while (now.get() < end) {
      Duration wait = budget.reserve();
      now.addAndGet(Math.max(wait.toNanos(), 1));
      budget.answered();
    }
    assertThat(budget.qps()).isBetween(40.0, 44.0);
    budget.throttled(Duration.ZERO);
    assertThat(budget.qps())
        .as("a second later, another 429 halves it again")
        .isBetween(20.0, 22.0);
  }

  @Test
  void aFixedBudgetNeverExceedsItsRateAndBacksOffBelowItOn429() {
    var now = new AtomicLong();
    var budget = new ApiBudget(4, 1, now::get, new RecordingSleeper());
    for (int i = 0; i < 100; i++) {
      now.addAndGet(budget.reserve().toNanos());
      budget.answered();
    }
    assertThat(budget.qps()).isEqualTo(4.0);
    for (int i = 0; i < 5; i++) {
      budget.throttled(Duration.ZERO);
      now.addAndGet(Duration.ofSeconds(1).toNanos());
    }
    assertThat(budget.qps()).as("never below one a second").isEqualTo(1.0);
  }

  @Test
  void aCeilingBelowTheStartingRateIsRefusedNamingIt() {
    assertThatThrownBy(() -> ApiBudget.adaptive(20, 10, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxQps must be finite and at least qps (20.0), was 10.0");
  }

  @Test
  void backoffGrowsIsCappedJitteredAndHonoursRetryAfter() {
    var policy =
        new RetryPolicy(10, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(30));
    var random = new Random(3);
    for (int retry = 1; retry <= 8; retry++) {
      long ceiling = Math.min(1000, 100L << (retry - 1));
      assertThat(policy.delay(retry, Duration.ZERO, random))
          .isBetween(Duration.ofMillis(ceiling / 2), Duration.ofMillis(ceiling));
    }
    assertThat(policy.delay(1, Duration.ofSeconds(5), random)).isEqualTo(Duration.ofSeconds(5));
    assertThat(policy.delay(1, Duration.ofMinutes(10), random))
        .as("a Retry-After beyond the maximum is cut to it")
        .isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void sameSeedSameDelays() {
    var policy = RetryPolicy.defaults();
    var a = new Random(9);
    var b = new Random(9);
    for (int retry = 1; retry <= 5; retry++) {
      assertThat(policy.delay(retry, Duration.ZERO, a))
          .isEqualTo(policy.delay(retry, Duration.ZERO, b));
    }
  }
}
