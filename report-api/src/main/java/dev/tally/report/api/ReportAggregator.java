package dev.tally.report.api;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Merges partial reports into aggregates and tells what to write. Pure and synchronous: no I/O, no
 * clock (time comes in as arguments), no threads; not thread-safe, so confine it to one thread or
 * guard it.
 *
 * <p>Semantics (docs/DESIGN.md, "Merge semantics"): per (subject namespace, subject uid, source,
 * policy), the evaluation latest in (observedAt, generation, producer) wins, whichever producer
 * made it; a key inside a partial's coverage without results is retracted; a deleted subject stays
 * deleted for everything observed at or before its deletion; the result is independent of the order
 * of events.
 *
 * <pre>{@code
 * ReportAggregator aggregator = ReportAggregator.builder()
 *     .grouping(Grouping.perNamespace())
 *     .limits(ReportLimits.defaults().withMaxResults(1000))
 *     .build();
 * aggregator.apply(partialReport);
 * aggregator.deleteSubject(namespace, uid, deletedAt);
 * ChangeSet changes = aggregator.flush();
 * }</pre>
 */
public interface ReportAggregator {

  /**
   * Applies one producer's evaluation of one subject.
   *
   * @throws InvalidReportException if the report is refused, such as for a result too large for any
   *     aggregate to hold within {@link ReportLimits#maxBytes()}; the state is then unchanged
   * @throws CapacityExceededException if a cap would be exceeded; the state is then unchanged
   */
  void apply(PartialReport partial);

  /**
   * Records that a subject is gone: every contribution about it observed at or before {@code
   * deletedAt} disappears, including ones that arrive later.
   *
   * <p>A deletion is about the subject {@code uid} in {@code namespace} only (empty for a
   * cluster-scoped subject): partial reports in another namespace that claim the same uid are not
   * about that object (a uid is unique in a cluster, so a claim in another namespace is a mistake
   * or a forgery) and keep their registers, and a later claim there is not hidden.
   *
   * @throws InvalidReportException if {@code namespace} or {@code deletedAt} is null or {@code uid}
   *     is null or blank; the state is then unchanged
   */
  void deleteSubject(String namespace, String uid, Timestamp deletedAt);

  /** Sets which policies and rules are live; the others are left out of aggregates. */
  void setLiveness(Liveness liveness);

  /**
   * Forgets deletions older than the retention before {@code now}. The one operation whose effect
   * depends on elapsed time, which the caller passes in.
   *
   * @return how many tombstones were dropped
   */
  int expireTombstones(Timestamp now);

  /**
   * The writes since the last flush (or {@link #resync}): creates, updates and deletes of
   * aggregates whose content changed. Empty when nothing changed. After it returns, the aggregator
   * takes the writes as published.
   */
  ChangeSet flush();

  /**
   * The writes that bring {@code observed} (what a cluster holds) to the desired aggregates;
   * objects Tally does not own are never touched. After it returns, the aggregator takes the
   * desired state as published. Used on start and after a conflict.
   */
  ChangeSet resync(Collection<AggregateReport> observed);

  /**
   * The writes that bring the objects named by {@code refs} to their desired state, {@code
   * observed} being what the cluster holds of them (an object of {@code refs} not in it is absent);
   * equal to the changes of a {@link #resync} against the whole cluster that concern {@code refs}.
   * After it returns, the aggregator takes those objects as published and nothing else: what else
   * changed since the last flush is still written by the next one. Used after a write met a
   * conflict or a vanished object, so that only the objects concerned are read again.
   *
   * @throws InvalidReportException naming {@code observed[i]} when an observed object is not one of
   *     {@code refs}
   */
  ChangeSet resyncOnly(Collection<ReportRef> refs, Collection<AggregateReport> observed);

  /** The desired aggregates now, in {@link ReportRef} order. */
  List<AggregateReport> aggregates();

  /** How many results the aggregator holds (visible or not), for caps and metrics. */
  long resultCount();

  /** What the aggregator holds now, counted as its {@link InputCaps} count it. */
  HeldCounts held();

  /** The configuration this aggregator was built with. */
  AggregatorConfig config();

  static Builder builder() {
    return new Builder();
  }

  /**
   * Configures an aggregator; the defaults are per-namespace wgpolicy reports with default limits.
   */
  final class Builder {
    private Grouping grouping = Grouping.perNamespace();
    private ReportFormat format = ReportFormat.WGPOLICY;
    private ReportLimits limits = ReportLimits.defaults();
    private InputCaps caps = InputCaps.defaults();
    private long tombstoneRetentionSeconds = Duration.ofHours(1).toSeconds();
    private String input = AggregatorConfig.DEFAULT_INPUT;

    private Builder() {}

    public Builder grouping(Grouping grouping) {
      this.grouping = InvalidReportException.requireNonNull("grouping", grouping);
      return this;
    }

    public Builder format(ReportFormat format) {
      this.format = InvalidReportException.requireNonNull("format", format);
      return this;
    }

    public Builder limits(ReportLimits limits) {
      this.limits = InvalidReportException.requireNonNull("limits", limits);
      return this;
    }

    public Builder caps(InputCaps caps) {
      this.caps = InvalidReportException.requireNonNull("caps", caps);
      return this;
    }

    public Builder tombstoneRetention(Duration retention) {
      this.tombstoneRetentionSeconds =
          InvalidReportException.requireNonNull("tombstoneRetention", retention).toSeconds();
      return this;
    }

    /**
     * The name of the input aggregated ({@link AggregatorConfig#input()}); {@link
     * AggregatorConfig#DEFAULT_INPUT} by default. An aggregator of another input owns only that
     * input's aggregates, which in Tally's layout carry it in their names and labels, so that
     * aggregators of different inputs share a cluster without touching each other's.
     *
     * @throws InvalidReportException naming {@code input} if it is not runs of lowercase letters
     *     and digits joined by single '-', at most 63 characters
     */
    public Builder input(String input) {
      this.input = Checks.inputName("input", InvalidReportException.requireNonNull("input", input));
      return this;
    }

    public AggregatorConfig config() {
      return new AggregatorConfig(grouping, format, limits, caps, tombstoneRetentionSeconds, input);
    }

    /**
     * Builds with the provider found on the class path (add {@code dev.tally:report-merge}).
     *
     * @throws IllegalStateException if no provider is on the class path
     */
    public ReportAggregator build() {
      var providers = ServiceLoader.load(ReportAggregatorProvider.class).iterator();
      if (!providers.hasNext()) {
        throw new IllegalStateException(
            "no ReportAggregatorProvider on the class path: add dev.tally:report-merge");
      }
      return providers.next().create(config());
    }
  }
}
