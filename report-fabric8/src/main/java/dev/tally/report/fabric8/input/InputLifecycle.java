package dev.tally.report.fabric8.input;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What happens to an input's objects around the merge, when that is more than "read it": deleting
 * objects once what they said is written, adopting objects about a resource whose uid is not known
 * yet, and, when objects leave after merging, seeding a new term from the aggregates and learning
 * which resources are gone. Every method has a default that does nothing, which is {@link #NONE}:
 * the objects stay and are the state, and an object's removal retracts what it said.
 *
 * <p>The controller calls it on its aggregator thread only; an implementation needs no locks.
 * Objects are known by the ledger's key (kind, namespace and name).
 */
public interface InputLifecycle {
  /** Objects stay; nothing is adopted or deleted. */
  InputLifecycle NONE = new InputLifecycle() {};

  /**
   * Whether objects leave once merged, so that the aggregates are the state: an object's removal
   * then says nothing about its subject, a new term is seeded from the aggregates ({@link
   * #observed}), and a resource is known gone only when this lifecycle says so.
   */
  default boolean aggregatesAreTheState() {
    return false;
  }

  /** How often {@link #adoptPending} should run; empty when nothing waits for adoption. */
  default Optional<Duration> adoptionRetry() {
    return Optional.empty();
  }

  /** The term ended: the next one knows nothing of this one's objects. */
  default void termEnded() {}

  /** {@code object}, known as {@code key}, is about a subject with no uid yet: it waits. */
  default void awaitAdoption(String key, HasMetadata object, Subject subject) {}

  /**
   * {@code object}, known as {@code key}, is about to be merged.
   *
   * @throws dev.tally.report.api.CapacityExceededException if this lifecycle holds as many objects
   *     as it may: it is refused, and merged once there is room
   */
  default void beforeMerge(String key, HasMetadata object) {}

  /** {@code object}, known as {@code key}, was merged (or said nothing). */
  default void merged(String key, HasMetadata object) {}

  /** The object known as {@code key} is gone from the cluster, or need not be acted on. */
  default void gone(String key) {}

  /**
   * Objects waiting for adoption look for their subject again; each found goes to {@code found}.
   */
  default void adoptPending(Consumer<HasMetadata> found) {}

  /**
   * The owned aggregates as the cluster holds them, listed at the start of a resync: when the
   * aggregates are the state, the first list of a term gives the seeds to apply, and a vanished
   * aggregate whose resource is gone gives a subject to delete.
   */
  default Observation observed(List<AggregateReport> owned) {
    return Observation.NOTHING;
  }

  /**
   * The aggregates {@code refs} were read again one by one after trouble writing them; {@code
   * observed} is what the cluster holds of them.
   */
  default void reread(Collection<ReportRef> refs, List<AggregateReport> observed) {}

  /**
   * {@code changes} were written, and the cluster holds what was applied in every namespace but
   * {@code unsettled} (where an object's write waits to be tried again): objects merged in those
   * may be retired; those in {@code unsettled} wait for a later call.
   */
  default void written(ChangeSet changes, Set<String> unsettled) {}

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
