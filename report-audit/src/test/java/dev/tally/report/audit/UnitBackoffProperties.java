package dev.tally.report.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The delay after the n-th failure: capped exponential, the upper half jittered. */
class UnitBackoffProperties {
  @Test
  void theDelayIsInTheUpperHalfOfTheCappedExponential() {
    qt().withFixedSeed(0xbac0ffL)
        .withExamples(2000)
        .forAll(
            integers().between(0, 10_000),
            integers().between(0, 600_000),
            integers().between(1, 80),
            longs().all())
        .checkAssert(
            (base, extra, n, seed) -> {
              UnitBackoff backoff =
                  new UnitBackoff(Duration.ofMillis(base), Duration.ofMillis(base + extra));
              long cap = backoff.cap().toNanos();
              long ceiling =
                  n - 1 >= 40 || backoff.base().toNanos() > (cap >> (n - 1))
                      ? cap
                      : backoff.base().toNanos() << (n - 1);
              Duration d = backoff.delay(n, new Random(seed));
              assertThat(d.toNanos()).isBetween(ceiling / 2, ceiling);
              assertThat(d).isEqualTo(backoff.delay(n, new Random(seed)));
            });
  }

  @Test
  void delaysGrowToTheCapAndStayThere() {
    UnitBackoff backoff = new UnitBackoff(Duration.ofSeconds(1), Duration.ofSeconds(8));
    Random random = new Random(5);
    long previousCeiling = 0;
    for (int n = 1; n <= 64; n++) {
      long ceiling = n <= 4 ? 1_000_000_000L << (n - 1) : 8_000_000_000L;
      long d = backoff.delay(n, random).toNanos();
      assertThat(d).isBetween(ceiling / 2, ceiling);
      assertThat(ceiling).isGreaterThanOrEqualTo(previousCeiling);
      previousCeiling = ceiling;
    }
  }

  @Test
  void aZeroDelayDrawsNothing() {
    UnitBackoff none = new UnitBackoff(Duration.ZERO, Duration.ZERO);
    Random random = new Random(1);
    Random untouched = new Random(1);
    assertThat(none.delay(3, random)).isZero();
    assertThat(random.nextLong()).isEqualTo(untouched.nextLong());
  }

  @Test
  void refusesBadArguments() {
    assertThatThrownBy(() -> new UnitBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new UnitBackoff(Duration.ofSeconds(-1), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> UnitBackoff.defaults().delay(0, new Random(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("failures");
  }
}
