package dev.tally.report.fabric8;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.merge.SubjectIndex;
import io.fabric8.kubernetes.client.CustomResource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The aggregator of the current term and what it was fed, per partial report object: the
 * resourceVersion last handled (so each version is applied once, whether the informer's cache or
 * its events deliver it), and which subject the object was about ({@link SubjectIndex}, which
 * decides when a subject is deleted). The liveness is kept across terms.
 *
 * <p>It decodes and applies, and hands refusals to {@link RejectionEvents}; every change to the
 * aggregator is announced to {@code changed}, which schedules a flush. Confined to the aggregator
 * thread.
 */
final class PartialReportLedger {
  private static final Logger LOG = LoggerFactory.getLogger(PartialReportLedger.class);

  private final RejectionEvents rejections;
  private final TallyMetrics metrics;
  private final Supplier<Timestamp> now;
  private final Runnable changed;

  private @Nullable ReportAggregator aggregator;
  private Liveness liveness = Liveness.all();
  private final SubjectIndex subjects = new SubjectIndex();

  /** The resourceVersion of each partial report object last handled, to handle each once. */
  private final Map<String, String> handledVersions = new HashMap<>();

  PartialReportLedger(
      RejectionEvents rejections, TallyMetrics metrics, Supplier<Timestamp> now, Runnable changed) {
    this.rejections = rejections;
    this.metrics = metrics;
    this.now = now;
    this.changed = changed;
  }

  /** Starts a term with a fresh aggregator, live as set so far; nothing is fed to it yet. */
  void begin(ReportAggregator fresh) {
    aggregator = fresh;
    fresh.setLiveness(liveness);
  }

  /** Ends the term: the aggregator and what it was fed are dropped. */
  void end() {
    aggregator = null;
    subjects.clear();
    handledVersions.clear();
  }

  /** The aggregator of the current term, or null between terms. */
  @Nullable ReportAggregator aggregator() {
    return aggregator;
  }

  /** How many objects the aggregator holds partial reports of. */
  int size() {
    return subjects.size();
  }

  /** Which policies and rules are live, now and in every later term. */
  void setLiveness(Liveness newLiveness) {
    liveness = newLiveness;
    if (aggregator != null) {
      aggregator.setLiveness(newLiveness);
      changed.run();
    }
  }

  /** A partial report object appeared or changed: applies it once per version, or rejects it. */
  void upsert(CustomResource<PartialReportSpec, Void> resource) {
    ReportAggregator agg = aggregator;
    if (agg == null) {
      return;
    }
    String key = key(resource);
    String version = Objects.requireNonNullElse(resource.getMetadata().getResourceVersion(), "");
    if (version.equals(handledVersions.put(key, version))) {
      return; // the informer's cache and its events both deliver every object: once is enough
    }
    PartialReport partial;
    try {
      PartialReport evaluation = ReportCodec.decodePartial(resource);
      if (!evaluation.adopted()) {
        LOG.debug("{} waits for its subject to be adopted", key);
        return;
      }
      partial = evaluation;
      agg.apply(partial);
    } catch (InvalidReportException e) {
      rejections.reject(key, resource, e);
      return;
    }
    metrics.partialApplied();
    // the same producer and subject name about a new uid: the old subject may be gone
    subjects.upsert(key, partial.subject().uid(), partial.observedAt()).ifPresent(this::delete);
    changed.run();
  }

  /** A partial report object is gone. */
  void removed(CustomResource<PartialReportSpec, Void> resource) {
    if (aggregator == null) {
      return;
    }
    String key = key(resource);
    handledVersions.remove(key);
    if (forget(key)) {
      changed.run();
    }
  }

  /**
   * Every object handled but not in {@code present} is gone: it was deleted without its event
   * reaching the informer.
   *
   * @return how many objects the aggregator held partial reports of were forgotten
   */
  int forgetAllBut(Set<String> present) {
    int forgotten = 0;
    for (String key : List.copyOf(handledVersions.keySet())) {
      if (!present.contains(key)) {
        handledVersions.remove(key);
        if (forget(key)) {
          forgotten++;
        }
      }
    }
    if (forgotten > 0) {
      changed.run();
    }
    return forgotten;
  }

  /** Whether {@code key} was an object the aggregator held a partial report of. */
  private boolean forget(String key) {
    if (!subjects.contains(key)) {
      return false;
    }
    subjects.remove(key).ifPresent(this::delete);
    return true;
  }

  /**
   * The last partial report about a subject is gone (garbage collection removes partial reports
   * with their subject): {@link SubjectIndex} decided that and the time, given now.
   */
  private void delete(SubjectIndex.Deletion deletion) {
    Timestamp deletedAt = deletion.at(now.get());
    Objects.requireNonNull(aggregator).deleteSubject(deletion.uid(), deletedAt);
    LOG.debug("subject {} deleted at {}", deletion.uid(), deletedAt);
  }

  /** The object's key: kind, namespace (empty when cluster-scoped) and name. */
  static String key(CustomResource<PartialReportSpec, Void> resource) {
    var meta = resource.getMetadata();
    return resource.getKind()
        + "/"
        + Optional.ofNullable(meta.getNamespace()).orElse("")
        + "/"
        + meta.getName();
  }
}
