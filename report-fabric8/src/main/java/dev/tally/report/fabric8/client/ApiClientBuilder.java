package dev.tally.report.fabric8.client;

import dev.tally.report.fabric8.metrics.TallyMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Objects;

/**
 * What every Tally component that makes requests is configured with: the client, the API budget,
 * how failed requests are retried and what hears about it. The builders of {@link
 * dev.tally.report.fabric8.AggregatorController}, {@link
 * dev.tally.report.fabric8.producer.PartialReportPublisher} and report-audit-worker's {@code
 * AuditMember} extend it, so they take these settings the same way and with the same defaults, and
 * read them through the protected accessors; one that cannot honour a setting (the audit member
 * takes its group's budget, not a process-wide one) overrides its setter to refuse it, saying why.
 *
 * @param <B> the concrete builder, which every setter returns for chaining
 */
public abstract class ApiClientBuilder<B extends ApiClientBuilder<B>> {
  private final KubernetesClient client;
  private ApiBudget budget = ApiBudget.of(20, 40);
  private RetryPolicy retryPolicy = RetryPolicy.defaults();
  private long seed = 1;
  private Sleeper sleeper = Sleeper.SYSTEM;
  private TallyMetrics metrics = TallyMetrics.NONE;

  protected ApiClientBuilder(KubernetesClient client) {
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

  /** The client requests go through. */
  protected final KubernetesClient client() {
    return client;
  }

  /** The API budget set with {@link #budget(ApiBudget)}, or the default (20 qps, burst 40). */
  protected final ApiBudget budget() {
    return budget;
  }

  /** How failed requests are retried; {@link RetryPolicy#defaults()} unless set. */
  protected final RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  /** The seed of the jitter of retries; 1 unless set. */
  protected final long seed() {
    return seed;
  }

  /** How waits wait; {@link Sleeper#SYSTEM} unless set. */
  protected final Sleeper sleeper() {
    return sleeper;
  }

  /** What hears about requests and writes; {@link TallyMetrics#NONE} unless set. */
  protected final TallyMetrics metrics() {
    return metrics;
  }

  /** This builder, as its concrete type. */
  @SuppressWarnings("unchecked")
  protected final B self() {
    return (B) this;
  }
}
