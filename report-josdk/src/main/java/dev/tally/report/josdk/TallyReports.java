package dev.tally.report.josdk;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.LeaderElectionSettings;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What a JOSDK reconciler that evaluates its primary resource needs from Tally, in a few lines:
 *
 * <pre>{@code
 * class ImagePolicyReconciler implements Reconciler<Deployment> {
 *   private final TallyReports reports =
 *       TallyReports.builder("image-policy").policy("image-policy", "pinned-images").build();
 *
 *   public List<EventSource<?, Deployment>> prepareEventSources(EventSourceContext<Deployment> c) {
 *     return List.of(reports.eventSource(c)); // Tally starts and stops with the controller
 *   }
 *
 *   public UpdateControl<Deployment> reconcile(Deployment d, Context<Deployment> c) {
 *     reports.report(d, evaluate(d)); // producer, subject, coverage and time are filled in
 *     return UpdateControl.noUpdate();
 *   }
 * }
 * }</pre>
 *
 * <p><b>Lifecycle.</b> {@link #eventSource} returns a JOSDK {@link EventSource}: the controller
 * starts it (so the publisher and, unless turned off, the {@link AggregatorController}) before it
 * delivers the first event to the reconciler, and stops it when the operator stops. It fires no
 * events and tracks no secondary resources; an event source is JOSDK's one extension point whose
 * lifecycle is the controller's and that a reconciler contributes itself.
 *
 * <p><b>Leader election.</b> The aggregator elects its writer with its own Lease, never with
 * JOSDK's: when the operator has a JOSDK {@link LeaderElectionConfiguration}, the aggregator uses a
 * Lease named {@code <JOSDK lease>-tally} in the same namespace with the same identity, so exactly
 * one replica writes aggregates (not necessarily the one that reconciles, which is harmless: the
 * aggregate is built from the partial reports in the cluster, not from the reconciler's memory).
 * Without JOSDK leader election the aggregator always leads, as a single-replica operator expects;
 * {@link Builder#leaderElection} sets the Lease explicitly. The partial reports are written by
 * every replica that reconciles, which under JOSDK leader election is the leader only.
 *
 * <p>One {@code TallyReports} per producer; when several reconcilers of one operator each have one,
 * let one of them run the aggregator and build the others {@link Builder#aggregate(boolean)
 * without}; so too when the aggregator runs elsewhere (Tally's runnable aggregator).
 */
public final class TallyReports {
  private final String producer;
  private final Set<CoverageKey> policies;
  private final Clock clock;
  private final boolean aggregate;
  private final @Nullable LeaderElectionSettings election;
  private final Supplier<ReportAggregator> aggregators;
  private final Consumer<PartialReportPublisher.Builder> publisherSettings;
  private final Consumer<AggregatorController.Builder> aggregatorSettings;

  private final Object lock = new Object();
  private @Nullable PartialReportPublisher publisher;
  private @Nullable AggregatorController aggregator;

  private TallyReports(Builder b) {
    this.producer = b.producer;
    this.policies = Set.copyOf(b.policies);
    this.clock = b.clock;
    this.aggregate = b.aggregate;
    this.election = b.election;
    this.aggregators = b.aggregators;
    this.publisherSettings = b.publisherSettings;
    this.aggregatorSettings = b.aggregatorSettings;
  }

  /** Reports of {@code producer}, coverage the results' policies, with the aggregator. */
  public static TallyReports of(String producer) {
    return builder(producer).build();
  }

  public static Builder builder(String producer) {
    return new Builder(producer);
  }

  /** The producer every partial report names. */
  public String producer() {
    return producer;
  }

  /**
   * The event source that starts the publisher and the aggregator with the controller of {@code
   * context} (with its client) and stops them with it. Return it from {@code
   * Reconciler.prepareEventSources}; one {@code TallyReports} belongs to one controller.
   */
  public <P extends HasMetadata> EventSource<TallyReports, P> eventSource(
      EventSourceContext<P> context) {
    KubernetesClient client = context.getClient();
    Optional<LeaderElectionConfiguration> josdkElection =
        context
            .getControllerConfiguration()
            .getConfigurationService()
            .getLeaderElectionConfiguration();
    LeaderElectionSettings lease = election;
    if (lease == null && josdkElection.isPresent()) {
      lease = derivedLease(josdkElection.get(), client);
    }
    return new TallyEventSource<>(this, client, lease);
  }

  /**
   * The aggregator's Lease beside JOSDK's: its name with {@code -tally}, its namespace (or the
   * client's), its identity (or {@code HOSTNAME}, or a random one, as JOSDK chooses) and durations.
   */
  static LeaderElectionSettings derivedLease(
      LeaderElectionConfiguration josdk, KubernetesClient client) {
    String namespace =
        josdk.getLeaseNamespace().orElseGet(() -> client.getConfiguration().getNamespace());
    if (namespace == null || namespace.isBlank()) {
      throw new IllegalArgumentException(
          "JOSDK's leader election has no lease namespace and the client none to infer:"
              + " set one, or TallyReports.Builder.leaderElection");
    }
    String identity =
        josdk
            .getIdentity()
            .filter(id -> !id.isBlank())
            .orElseGet(
                () -> {
                  String host = System.getenv("HOSTNAME");
                  return host == null || host.isBlank() ? UUID.randomUUID().toString() : host;
                });
    return new LeaderElectionSettings(
        namespace,
        josdk.getLeaseName() + "-tally",
        identity,
        josdk.getLeaseDuration(),
        josdk.getRenewDeadline(),
        josdk.getRetryPeriod());
  }

  /**
   * Publishes the evaluation of {@code primary}: {@code results} are all the results of the
   * producer's policies about it (a policy of the coverage without a result retracts an earlier
   * one). The subject is the primary's apiVersion, kind, namespace, name and uid, the subject
   * version its resourceVersion, the generation its {@code metadata.generation}, the time the
   * clock's now.
   *
   * @return completes when written; see {@link PartialReportPublisher#publish}
   * @throws dev.tally.report.api.InvalidReportException if the partial report is invalid (a result
   *     outside the declared policies, names too long); nothing is published
   * @throws IllegalStateException before the event source started or after it stopped
   */
  public CompletableFuture<Void> report(HasMetadata primary, List<Result> results) {
    return publisher().publish(partialReport(primary, results));
  }

  /** The partial report {@link #report} publishes. */
  public PartialReport partialReport(HasMetadata primary, List<Result> results) {
    Instant now = clock.instant();
    ObjectMeta meta = Objects.requireNonNull(primary.getMetadata(), "primary.metadata");
    Long generation = meta.getGeneration();
    return PartialReport.builder()
        .producer(producer)
        .subject(subjectOf(primary))
        .subjectVersion(orEmpty(meta.getResourceVersion()))
        .coverage(coverageOf(results))
        .results(results)
        .observedAt(new Timestamp(Math.max(0, now.getEpochSecond()), now.getNano()))
        .generation(generation == null ? 0 : Math.max(0, generation))
        .build();
  }

  /** The subject a partial report about {@code resource} names. */
  public static Subject subjectOf(HasMetadata resource) {
    ObjectMeta meta = Objects.requireNonNull(resource.getMetadata(), "metadata");
    return Subject.of(
        orEmpty(resource.getApiVersion()),
        orEmpty(resource.getKind()),
        orEmpty(meta.getNamespace()),
        orEmpty(meta.getName()),
        orEmpty(meta.getUid()));
  }

  private Set<CoverageKey> coverageOf(Collection<Result> results) {
    if (policies.isEmpty()) {
      return Set.of(); // the results' keys
    }
    return new TreeSet<>(policies);
  }

  private static String orEmpty(@Nullable String s) {
    return s == null ? "" : s;
  }

  /**
   * The publisher, for what {@link #report} does not cover (a subject other than the primary).
   *
   * @throws IllegalStateException before the event source started or after it stopped
   */
  public PartialReportPublisher publisher() {
    synchronized (lock) {
      if (publisher == null) {
        throw new IllegalStateException(
            "TallyReports '"
                + producer
                + "' is not running: return reports.eventSource(context) from the reconciler's"
                + " prepareEventSources, and report from reconcile");
      }
      return publisher;
    }
  }

  /** The aggregator running in this operator, while running; empty when built without. */
  public Optional<AggregatorController> aggregator() {
    synchronized (lock) {
      return Optional.ofNullable(aggregator);
    }
  }

  /** Whether the event source started and has not stopped. */
  public boolean running() {
    synchronized (lock) {
      return publisher != null;
    }
  }

  void start(KubernetesClient client, @Nullable LeaderElectionSettings lease) {
    synchronized (lock) {
      if (publisher != null) {
        return;
      }
      PartialReportPublisher.Builder pb = PartialReportPublisher.builder(client).clock(clock);
      publisherSettings.accept(pb);
      PartialReportPublisher newPublisher = pb.build();
      AggregatorController newAggregator = null;
      if (aggregate) {
        AggregatorController.Builder ab =
            AggregatorController.builder(client).aggregator(aggregators).clock(clock);
        if (lease != null) {
          ab.leaderElection(lease);
        }
        aggregatorSettings.accept(ab);
        newAggregator = ab.build();
        try {
          newAggregator.start();
        } catch (RuntimeException e) {
          newAggregator.close();
          newPublisher.close();
          throw e;
        }
      }
      publisher = newPublisher;
      aggregator = newAggregator;
    }
  }

  void stop() {
    PartialReportPublisher p;
    AggregatorController a;
    synchronized (lock) {
      p = publisher;
      a = aggregator;
      publisher = null;
      aggregator = null;
    }
    // the queued partial reports first, so the aggregator (while it still runs) may see them
    try {
      if (p != null) {
        p.close();
      }
    } finally {
      if (a != null) {
        a.close();
      }
    }
  }

  /** Configures {@link TallyReports}. */
  public static final class Builder {
    private final String producer;
    private final Set<CoverageKey> policies = new TreeSet<>();
    private Clock clock = Clock.systemUTC();
    private boolean aggregate = true;
    private @Nullable LeaderElectionSettings election;
    private Supplier<ReportAggregator> aggregators = () -> ReportAggregator.builder().build();
    private Consumer<PartialReportPublisher.Builder> publisherSettings = b -> {};
    private Consumer<AggregatorController.Builder> aggregatorSettings = b -> {};

    private Builder(String producer) {
      // checked as a partial report checks it, so a bad name fails here and not in reconcile
      new CoverageKey("", Objects.requireNonNull(producer, "producer"));
      this.producer = producer;
    }

    /**
     * A policy this producer evaluates on every primary: the coverage of each report. With none,
     * the coverage is the policies of each report's results (a report without results then says
     * nothing and is refused). Declare them so that "no failure any more" retracts.
     */
    public Builder policy(String source, String policy) {
      policies.add(CoverageKey.of(source, policy));
      return this;
    }

    /** Where {@code observedAt} comes from; the system clock by default. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Run the aggregator inside the operator; on by default. */
    public Builder aggregate(boolean aggregate) {
      this.aggregate = aggregate;
      return this;
    }

    /** The aggregator's Lease, instead of the one derived from JOSDK's leader election. */
    public Builder leaderElection(LeaderElectionSettings election) {
      this.election = Objects.requireNonNull(election, "election");
      return this;
    }

    /** How the aggregator is made (format, grouping, limits); the defaults otherwise. */
    public Builder aggregator(Supplier<ReportAggregator> aggregators) {
      this.aggregators = Objects.requireNonNull(aggregators, "aggregators");
      return this;
    }

    /** Further settings of the publisher (budget, metrics, retries), applied when it starts. */
    public Builder publisher(Consumer<PartialReportPublisher.Builder> settings) {
      this.publisherSettings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /** Further settings of the aggregator (budget, metrics, flush window), applied on start. */
    public Builder aggregatorController(Consumer<AggregatorController.Builder> settings) {
      this.aggregatorSettings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    public TallyReports build() {
      return new TallyReports(this);
    }
  }
}
