package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Which failures {@link ApiCalls} retries, with failures shaped as fabric8 8 throws them. */
class ApiCallsTest {
  private final RecordingSleeper sleeper = new RecordingSleeper();
  private final ApiCalls calls =
      new ApiCalls(
          ApiBudget.of(1000, 1000),
          new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(40), Duration.ZERO),
          new Random(1),
          sleeper,
          TallyMetrics.NONE);

  @Test
  void aRefusedConnectionIsRetried() {
    // fabric8 wraps an I/O error with code -1: no HTTP response at all
    var refused =
        new KubernetesClientException(
            "An error has occurred.", new ConnectException("Connection refused"));
    assertThat(refused.getCode()).isEqualTo(-1);
    AtomicInteger attempts = new AtomicInteger();

    String result =
        calls.call(
            "get something",
            () -> {
              if (attempts.incrementAndGet() < 3) {
                throw refused;
              }
              return "ok";
            });

    assertThat(result).isEqualTo("ok");
    assertThat(attempts).hasValue(3);
    assertThat(sleeper.sleeps).hasSize(2);
  }

  @Test
  void aForbiddenRequestIsNotRetried() {
    var forbidden =
        new KubernetesClientException(
            "forbidden", 403, new StatusBuilder().withCode(403).withReason("Forbidden").build());
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(
            () ->
                calls.call(
                    "get something",
                    () -> {
                      attempts.incrementAndGet();
                      throw forbidden;
                    }))
        .isSameAs(forbidden);
    assertThat(attempts).hasValue(1);
    assertThat(sleeper.sleeps).isEmpty();
  }
}
