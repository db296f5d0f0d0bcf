package dev.tally.report.fabric8.input;

import dev.tally.report.api.Subject;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * An input's adoption service ({@link InputServices}): an object about a subject whose uid is not
 * known yet (a Kyverno admission report about a Pod being created, {@link
 * Statement.AwaitsAdoption}) waits here, unmerged, until its subject is found. Without one, such an
 * object is left alone.
 *
 * <p>The controller calls it on its aggregator thread only; an implementation needs no locks.
 * Objects are known by the ledger's key (kind, namespace and name).
 */
public interface SubjectAdoption {
  /** How often the controller calls {@link #retry}. */
  Duration retryEvery();

  /**
   * {@code object}, known as {@code key}, is about {@code subject}, whose uid is not known yet: it
   * waits.
   *
   * @throws dev.tally.report.api.CapacityExceededException when as many objects wait as this
   *     service allows: it is refused, and handled again by a later re-list
   */
  void await(String key, HasMetadata object, Subject subject);

  /**
   * Looks for the subjects of the waiting objects again; each object whose subject was found goes
   * to {@code found} (with the subject's uid), which applies it at once.
   */
  void retry(Consumer<HasMetadata> found);

  /** The object known as {@code key} no longer waits: it was merged, or left the cluster. */
  void release(String key);

  /** The term ended: the next one knows nothing of this one's objects. */
  default void termEnded() {}
}
