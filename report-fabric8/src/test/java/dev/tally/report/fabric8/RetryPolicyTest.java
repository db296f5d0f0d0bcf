package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.merge.publish.Backoff;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A request's retry waits are report-merge's one backoff rule, floored by the Retry-After. */
class RetryPolicyTest {
  @Test
  void theDelayIsTheMergesBackoffAndAtLeastTheRetryAfterUpToItsCap() {
    qt().withFixedSeed(0x7e7541L)
        .withExamples(1000)
        .forAll(
            integers().between(0, 5_000),
            integers().between(0, 60_000),
            integers().between(0, 70),
            longs().all())
        .checkAssert(
            (base, extra, retry, seed) -> {
              long retryAfterMs = new Random(~seed).nextInt(120_000);
              var policy =
                  new RetryPolicy(
                      6,
                      Duration.ofMillis(base),
                      Duration.ofMillis(base + extra),
                      Duration.ofSeconds(60));
              Duration backoff =
                  Backoff.jittered(policy.base(), policy.cap(), retry, new Random(seed));
              assertThat(policy.delay(retry, Duration.ZERO, new Random(seed))).isEqualTo(backoff);
              Duration retryAfter = Duration.ofMillis(retryAfterMs);
              Duration floor =
                  retryAfter.compareTo(policy.maxRetryAfter()) > 0
                      ? policy.maxRetryAfter()
                      : retryAfter;
              assertThat(policy.delay(retry, retryAfter, new Random(seed)))
                  .isEqualTo(backoff.compareTo(floor) >= 0 ? backoff : floor);
            });
  }
}
