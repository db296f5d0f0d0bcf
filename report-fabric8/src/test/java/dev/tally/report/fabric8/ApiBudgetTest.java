package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

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
