package dev.tally.report.fabric8.producer;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.ApiClientBuilder;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.merge.names.KubernetesNames;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What producers (an admission webhook, a scanner, an audit worker) use to write their partial
 * reports. One object per (producer, subject) with a deterministic name, updated in place; an owner
 * reference to the subject so garbage collection removes it with the subject.
 *
 * <ul>
 *   <li><b>Coalescing:</b> while a write for a subject is pending, a newer evaluation replaces it
 *       (latest wins by observedAt, generation, producer); both callers' futures complete with the
 *       one write.
 *   <li><b>Back-pressure:</b> at most {@code maxPending} subjects wait to be written; past that,
 *       {@link #publish} throws {@link PublisherSaturatedException}. Nothing is dropped silently.
 *   <li><b>Adoption:</b> an evaluation whose subject has no uid yet (admission on CREATE) is
 *       written without an owner; {@link #adoptPending()} later sets the uid and owner once the
 *       subject exists, or deletes the report if the subject never appeared within the grace
 *       period.
 * </ul>
 *
 * <p>Writes happen on one thread of the publisher's own, through the shared {@link ApiBudget}. The
 * queue ({@code PublishQueue}), the write protocol ({@code PartialReportWrites}) and adoption
 * ({@code Adoption}) each have a class of their own in this package.
 */
public final class PartialReportPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PartialReportPublisher.class);

  private final PublishQueue queue;
  private final Adoption adoption;

  private PartialReportPublisher(Builder b) {
    ApiCalls calls = b.calls();
    KubernetesClient client = b.kube();
    SubjectResolver resolver = b.resolver == null ? SubjectResolver.of(client) : b.resolver;
    var writes = new PartialReportWrites(client, calls, b.tallyMetrics(), b.clock);
    this.adoption = new Adoption(client, calls, resolver, writes, b.clock, b.adoptionGrace);
    this.queue = new PublishQueue(writes, b.maxPending);
  }

  public static Builder builder(KubernetesClient client) {
    return new Builder(client);
  }

  /**
   * The name of the partial report object of a producer about a subject. It does not depend on the
   * subject's uid, so a report written before its subject existed keeps its name when adopted.
   */
  public static String objectName(String producer, Subject subject) {
    return KubernetesNames.partialReport(producer, subject);
  }

  /**
   * Queues a partial report to be written. Its subject may have no uid yet (an admission webhook on
   * CREATE): it is then written without an owner and adopted once the subject exists. The future
   * completes when it (or a later evaluation of the same producer and subject that replaced it) is
   * written, or fails with a {@link RequestFailedException} whose message names the root cause (the
   * server's reason, or the network error such as "Connection refused") and whose cause is what the
   * client threw. It always settles: each request has a bounded number of attempts ({@link
   * RetryPolicy}), each bounded by the client's request timeout.
   *
   * @throws PublisherSaturatedException if {@code maxPending} subjects already wait
   * @throws IllegalStateException if the publisher is closed
   */
  public CompletableFuture<Void> publish(PartialReport evaluation) {
    return queue.publish(evaluation);
  }

  /** How many subjects wait to be written. */
  public int pendingCount() {
    return queue.pendingCount();
  }

  /** Runs {@link #adoptPending()} every {@code period} on the publisher's thread. */
  public void adoptEvery(Duration period) {
    queue.every(
        period,
        () -> {
          try {
            adoptPending();
          } catch (RuntimeException e) {
            LOG.warn("adoption pass failed: {}", RequestFailedException.rootCause(e));
          }
        });
  }

  /**
   * Adopts partial reports whose subject had no uid when they were written: sets the uid and the
   * owner reference once the subject exists, deletes the report once its subject has not appeared
   * within the grace period.
   */
  public AdoptionOutcome adoptPending() {
    return adoption.adoptPending();
  }

  /** Stops accepting evaluations, lets the queued writes finish for up to {@code timeout}. */
  public void close(Duration timeout) {
    queue.close(timeout);
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(10));
  }

  /** Configures a {@link PartialReportPublisher}. */
  public static final class Builder extends ApiClientBuilder<Builder> {
    private Clock clock = Clock.systemUTC();
    private int maxPending = 10_000;
    private Duration adoptionGrace = Duration.ofMinutes(5);
    private @Nullable SubjectResolver resolver;

    private Builder(KubernetesClient client) {
      super(client);
    }

    /** Where pending-since times and the grace period are measured. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** The most subjects waiting to be written; 10,000 by default. */
    public Builder maxPending(int maxPending) {
      if (maxPending < 1) {
        throw new IllegalArgumentException("maxPending must be at least 1");
      }
      this.maxPending = maxPending;
      return this;
    }

    /** How long a report waits for its subject to appear before it is removed; 5 minutes. */
    public Builder adoptionGrace(Duration adoptionGrace) {
      this.adoptionGrace = adoptionGrace;
      return this;
    }

    /** How subjects' uids are found for adoption; a generic GET by default. */
    public Builder subjectResolver(SubjectResolver resolver) {
      this.resolver = resolver;
      return this;
    }

    public PartialReportPublisher build() {
      return new PartialReportPublisher(this);
    }

    /** Requests as the settings say. */
    private ApiCalls calls() {
      return new ApiCalls(budget(), retryPolicy(), new Random(seed()), sleeper(), metrics());
    }

    private KubernetesClient kube() {
      return client();
    }

    private TallyMetrics tallyMetrics() {
      return metrics();
    }
  }
}
