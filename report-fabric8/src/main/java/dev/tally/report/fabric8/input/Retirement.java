package dev.tally.report.fabric8.input;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * An input's retirement service ({@link InputServices}): its objects leave once merged, deleted by
 * this service once what they said is written (Kyverno's intermediate reports) or gone by nature (a
 * Gatekeeper run is read once, and its file is the export driver's). So the aggregates in the
 * cluster are the state: an object's removal says nothing about its subject, each term starts from
 * seeds made of the owned aggregates ({@link #observed}), and a resource is known gone only when
 * this service says so. Without one, an input's objects stay and are the state, and an object's
 * removal retracts what it said.
 *
 * <p>The controller calls it on its aggregator thread only; an implementation needs no locks.
 * Objects are known by the ledger's key (kind, namespace and name).
 */
public interface Retirement {
  /**
   * The owned aggregates as the cluster holds them, listed at the start of each resync: the first
   * list of a term gives the seeds to apply, and an aggregate that vanished while its resource is
   * gone gives a subject to delete.
   */
  Observation observed(List<AggregateReport> owned);

  /**
   * {@code object}, known as {@code key}, is about to be merged.
   *
   * @throws dev.tally.report.api.CapacityExceededException if this service holds as many objects to
   *     retire as it may: it is refused, and merged once there is room
   */
  default void beforeMerge(String key, HasMetadata object) {}

  /** {@code object}, known as {@code key}, was merged (or said nothing): it is to be retired. */
  default void merged(String key, HasMetadata object) {}

  /** The object known as {@code key} left the cluster, or need not be acted on. */
  default void gone(String key) {}

  /**
   * {@code changes} were written, and the cluster holds what was applied in every namespace but
   * {@code unsettled} (where an object's write waits to be tried again): objects merged in those
   * may be retired; those in {@code unsettled} wait for a later call.
   */
  default void written(ChangeSet changes, Set<String> unsettled) {}

  /**
   * The aggregates {@code refs} were read again one by one after trouble writing them; {@code
   * observed} is what the cluster holds of them.
   */
  default void reread(Collection<ReportRef> refs, List<AggregateReport> observed) {}

  /** The term ended: the next one seeds afresh and knows nothing of this one's objects. */
  default void termEnded() {}

  /**
   * What a list of the owned aggregates told: partial reports to seed the aggregator with, and
   * subjects found deleted.
   */
  record Observation(List<PartialReport> seeds, List<Subject> gone) {
    public static final Observation NOTHING = new Observation(List.of(), List.of());

    public Observation {
      seeds = List.copyOf(seeds);
      gone = List.copyOf(gone);
    }
  }
}
