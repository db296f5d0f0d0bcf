package dev.tally.report.fabric8;

import dev.tally.report.fabric8.internal.ApiCalls;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Objects;
import java.util.Random;

/**
 * What every Tally component that makes requests is configured with: the client, the API budget,
 * how failed requests are retried and what hears about it. The builders of {@link
 * AggregatorController} and {@link PartialReportPublisher} extend it, so both take these settings
 * the same way and with the same defaults.
 *
 * @param <B> the concrete builder, which every setter returns for chaining
 */
abstract class ApiClientBuilder<B extends ApiClientBuilder<B>> {
  final KubernetesClient client;
  ApiBudget budget = ApiBudget.of(20, 40);
  RetryPolicy retryPolicy = RetryPolicy.defaults();
  long seed = 1;
  Sleeper sleeper = Sleeper.SYSTEM;
  TallyMetrics metrics = TallyMetrics.NONE;

  ApiClientBuilder(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  /** The API budget; share one between every Tally component of the process. */
  public B budget(ApiBudget budget) {
    this.budget = budget;
    return self();
  }

  public B retryPolicy(RetryPolicy retryPolicy) {
    this.retryPolicy = retryPolicy;
    return self();
  }

  /** Seeds the jitter of retries. */
  public B seed(long seed) {
    this.seed = seed;
    return self();
  }

  /** How retries wait; tests pass one that does not really sleep. */
  public B sleeper(Sleeper sleeper) {
    this.sleeper = sleeper;
    return self();
  }

  public B metrics(TallyMetrics metrics) {
    this.metrics = metrics;
    return self();
  }

  /** Requests as these settings say, with the jitter of retries drawn from {@code random}. */
  ApiCalls calls(Random random) {
    return new ApiCalls(budget, retryPolicy, random, sleeper, metrics);
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }
}
