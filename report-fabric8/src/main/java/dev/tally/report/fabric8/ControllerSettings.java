package dev.tally.report.fabric8;

import dev.tally.report.api.ReportAggregator;
import dev.tally.report.fabric8.client.ApiClientBuilder;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.metrics.Freshness;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.partials.PartialReportsInput;
import dev.tally.report.merge.publish.ClockRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * How an {@link AggregatorController} paces, bounds and times its work: the flush window, the
 * resync periods, the clock and its rule, the stall bound, the caps on refused objects, how it
 * writes, and the settings of every component it is built on ({@link ApiClientBuilder}). {@link
 * AggregatorController.Builder} adds what the controller aggregates, reads and whether it elects;
 * these settings are read by the controller's parts in this package.
 *
 * @param <B> the concrete builder, which every setter returns for chaining
 */
abstract class ControllerSettings<B extends ControllerSettings<B>> extends ApiClientBuilder<B> {
  @Nullable Supplier<ReportAggregator> aggregators;
  @Nullable LeaderElectionSettings election;
  ReportInput input = new PartialReportsInput();
  Clock clock = Clock.systemUTC();
  LongSupplier nanoTicker = System::nanoTime;
  Duration flushWindow = Duration.ofMillis(500);
  Duration resyncPeriod = Duration.ofMinutes(10);
  Duration minResyncInterval = Duration.ofSeconds(30);
  Duration syncTimeout = Duration.ofSeconds(60);
  Duration maxClockSkew = ClockRule.DEFAULT_MAX_SKEW;
  Duration stallBound = Duration.ofMinutes(3);
  boolean serverSideApply;
  int writeConcurrency = 1;
  boolean emitEvents = true;
  int maxRefusedCopiesPerNamespace = InformerStores.DEFAULT_MAX_PER_NAMESPACE;
  int maxRefusedCopies = InformerStores.DEFAULT_MAX;

  ControllerSettings(KubernetesClient client) {
    super(client);
  }

  /**
   * How to make a fresh aggregator: called on start and on each won Lease, because the state is
   * rebuilt from the partial reports each time.
   */
  public B aggregator(Supplier<ReportAggregator> aggregators) {
    this.aggregators = aggregators;
    return self();
  }

  /** Elect a leader with a Lease; without it this replica always leads. */
  public B leaderElection(LeaderElectionSettings election) {
    this.election = election;
    return self();
  }

  /**
   * What to read: Tally's own partial reports ({@link PartialReportsInput}) by default, or another
   * input (Kyverno's intermediate reports, trivy-operator's config audit reports, Gatekeeper's
   * audit export, or one of the user's own). The aggregator names it as its input ({@code
   * ReportAggregator.builder().input(input.name())}; Kyverno's layout, which names no input, may
   * leave the default), and {@link AggregatorController.Builder#build} asks the input whether it
   * can feed the aggregator ({@link ReportInput#checkAggregator}).
   */
  public B input(ReportInput input) {
    this.input = Objects.requireNonNull(input, "input");
    return self();
  }

  /** Where deletion times and tombstone expiry come from. */
  public B clock(Clock clock) {
    this.clock = clock;
    return self();
  }

  /**
   * Measures flush durations, the heartbeat of the aggregator thread ({@link #stallBound}), the
   * {@link Freshness} and the Lease's renew deadline.
   */
  public B nanoTicker(LongSupplier nanoTicker) {
    this.nanoTicker = nanoTicker;
    return self();
  }

  /** How long to gather changes before a flush writes them; 500 ms by default. */
  public B flushWindow(Duration flushWindow) {
    this.flushWindow = flushWindow;
    return self();
  }

  /** How often to re-read everything as a safety net; 10 minutes by default, zero for never. */
  public B resyncPeriod(Duration resyncPeriod) {
    this.resyncPeriod = resyncPeriod;
    return self();
  }

  /**
   * How far ahead of this process's clock an evaluation may be observed, or a result stamped; a
   * later one is refused with an Event naming the field (docs/DESIGN.md, the clock rule). 5 minutes
   * by default.
   */
  public B maxClockSkew(Duration maxClockSkew) {
    this.maxClockSkew = ClockRule.allowing(maxClockSkew).maxSkew();
    return self();
  }

  /**
   * The least time between two full resyncs (a LIST of every owned aggregate) that trouble asks for
   * (a failed task, many failed writes); 30 seconds by default. The first resync of a term and the
   * periodic one are not held back. Writes that meet a conflict re-read only their objects and are
   * not resyncs.
   */
  public B minResyncInterval(Duration minResyncInterval) {
    this.minResyncInterval = Objects.requireNonNull(minResyncInterval, "minResyncInterval");
    return self();
  }

  /**
   * How long a task of the aggregator thread may show no progress (no API request or backoff
   * begins, it does not end) before {@link AggregatorController#stalled()} says the controller is
   * stuck; 3 minutes by default, more than one request's worst backoff (Retry-After is honoured up
   * to a minute). Measured on the {@link #nanoTicker}.
   */
  public B stallBound(Duration stallBound) {
    if (stallBound.isNegative() || stallBound.isZero()) {
      throw new IllegalArgumentException("stallBound: must be positive, was " + stallBound);
    }
    this.stallBound = stallBound;
    return self();
  }

  /** How long to wait for the informers' first list. */
  public B syncTimeout(Duration syncTimeout) {
    this.syncTimeout = syncTimeout;
    return self();
  }

  /**
   * How many writes of one flush or resync (and deletes of the input objects they retire) are in
   * flight at once; 1 by default, one after the other. Each is its own object and every one still
   * takes its token of the shared budget, so more in flight never sends more than the budget
   * grants: it waits on the server's round trips side by side (docs/DESIGN.md §7.7). The aggregator
   * program runs 8.
   *
   * @throws IllegalArgumentException if it is not between 1 and 64
   */
  public B writeConcurrency(int writeConcurrency) {
    if (writeConcurrency < 1 || writeConcurrency > ApiCalls.MAX_CONCURRENCY) {
      throw new IllegalArgumentException(
          "writeConcurrency: must be between 1 and "
              + ApiCalls.MAX_CONCURRENCY
              + ", was "
              + writeConcurrency);
    }
    this.writeConcurrency = writeConcurrency;
    return self();
  }

  /** Write with server-side apply (field manager {@code tally}) instead of update. */
  public B serverSideApply(boolean serverSideApply) {
    this.serverSideApply = serverSideApply;
    return self();
  }

  /** Record a Kubernetes Event on each rejected partial report; on by default. */
  public B emitEvents(boolean emitEvents) {
    this.emitEvents = emitEvents;
    return self();
  }

  /**
   * Caps on what the informers hold of the objects refused (docs/DESIGN.md, section 9, "Caps"):
   * each is held as its identity alone (a stripped copy, at most about 2 KiB), at most {@code
   * perNamespace} of them in one namespace and {@code total} in all (1,000 and 20,000 by default).
   * Past a cap nothing is held for a refused object (a Warning Event {@code NotHeld} naming the
   * cap, {@link TallyMetrics#capacityReached}); its deletion is then seen by the next periodic
   * re-list.
   */
  public B maxRefusedCopies(int perNamespace, int total) {
    if (perNamespace < 1 || total < 1) {
      throw new IllegalArgumentException(
          "maxRefusedCopies must be at least 1, was " + perNamespace + " and " + total);
    }
    this.maxRefusedCopiesPerNamespace = perNamespace;
    this.maxRefusedCopies = total;
    return self();
  }

  // what the controller reads of ApiClientBuilder's settings (protected there: a subclass's body)

  final KubernetesClient kube() {
    return client();
  }

  final TallyMetrics tallyMetrics() {
    return metrics();
  }

  final RetryPolicy retries() {
    return retryPolicy();
  }

  final long jitterSeed() {
    return seed();
  }

  /** Requests as these settings say, with the jitter of retries drawn from {@code random}. */
  final ApiCalls requests(Random random) {
    return new ApiCalls(budget(), retryPolicy(), random, sleeper(), metrics(), writeConcurrency);
  }
}
