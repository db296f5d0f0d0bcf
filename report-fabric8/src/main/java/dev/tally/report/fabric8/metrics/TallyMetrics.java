package dev.tally.report.fabric8.metrics;

import dev.tally.report.api.ReportRef;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Listens to what the adapter does, to feed whatever metrics library an operator uses. Every method
 * has an empty default; implementations must be fast and thread-safe (they are called from the
 * aggregator thread, the publisher thread and informer threads).
 */
public interface TallyMetrics {
  /** Listens to nothing. */
  TallyMetrics NONE = new TallyMetrics() {};

  /** The aggregator accepted a partial report. */
  default void partialApplied() {}

  /** A partial report was refused and changed nothing, for {@code reason}. */
  default void partialRejected(RejectionReason reason) {}

  /**
   * A producer's partial report was written ({@link WriteVerb#CREATE} or {@link WriteVerb#UPDATE}).
   */
  default void partialPublished(WriteVerb verb) {}

  /** One write of an aggregate. */
  default void write(WriteVerb verb, ReportRef ref) {}

  /** A write met a conflict (409) or a vanished object; the controller re-reads and re-diffs. */
  default void conflict(ReportRef ref) {}

  /**
   * The API server refused the content of {@code ref} for good ({@code code}: 400, 413 or 422): it
   * is parked, not written again until its content changes. Counted once per content refused.
   */
  default void writeRefused(ReportRef ref, int code) {}

  /**
   * How many objects wait to be written again after a failure that may heal or a conflict, each
   * after its own backoff; 0 when every object is written (or parked).
   */
  default void writesInTrouble(int count) {}

  /** A request is retried after a 429, a 5xx or a connection error. */
  default void retry(int statusCode, Duration delay) {}

  /** A write was skipped because the object already held the desired content. */
  default void noOpWriteSuppressed() {}

  /** One flush: how many changes it wrote and how long it took, writes included. */
  default void flushed(int changes, Duration took) {}

  /**
   * The controller rebuilt its view of the cluster (start, lease won, after a conflict): called
   * once the writes of the difference it found ({@code changes} of them) are done.
   */
  default void resynced(int changes) {}

  /**
   * An input object was deleted after what it said was written (an input whose lifecycle deletes
   * merged objects, such as Kyverno's intermediate reports by default).
   */
  default void inputObjectDeleted() {}

  /**
   * An input object was deleted because its resource did not appear within its input's adoption
   * grace: the one way an input object leaves without being merged, never silent.
   */
  default void inputObjectExpired() {}

  /**
   * How many input objects were read and wait in the cluster now, for the write that lets them be
   * deleted or for their resource to appear: what the aggregator owes etcd.
   */
  default void inputObjectsWaiting(int count) {}

  /**
   * After writes met conflicts or vanished objects (or failed), {@code objects} objects were read
   * again one by one and re-diffed, giving {@code changes} changes: no LIST of every aggregate.
   */
  default void reread(int objects, int changes) {}

  /**
   * A cap was reached ({@code cap} names it: a component of {@code InputCaps} such as {@code
   * maxRegistersPerNamespace}, or an adapter's cap such as {@code
   * maxAwaitingAdoptionPerNamespace}): an object was refused, or the oldest tombstones were
   * forgotten. Never an out-of-memory error.
   */
  default void capacityReached(String cap) {}

  /**
   * A rejection in {@code namespace} was not recorded as an Event because that namespace used up
   * its share of Events (it is still counted by {@link #partialRejected} and logged).
   */
  default void rejectionEventSuppressed(String namespace) {}

  /**
   * Why the aggregator reads one resource that an input object names (by name, metadata only, and
   * only for the kinds its input was told its role may read: {@link
   * dev.tally.report.fabric8.input.ResourceLookups}).
   */
  enum Lookup {
    /** To learn the uid of what an input object names (a Kyverno admission report). */
    ADOPTION("adoption"),
    /** To learn whether the resource of a vanished aggregate is gone. */
    GONE_CHECK("gone");

    private final String metricName;

    Lookup(String metricName) {
      this.metricName = metricName;
    }

    /** The name for metric tags: {@code adoption} or {@code gone}. */
    public String metricName() {
      return metricName;
    }
  }

  /**
   * A lookup failed (refused, a kind the server does not serve, retries exhausted). It is not taken
   * for "not found": the object it is about is looked up again later, with a per-object backoff.
   */
  default void resourceLookupFailed(Lookup lookup) {}

  /**
   * A lookup was not made: the resource's kind is not among those its input may read (what the
   * aggregator's role grants, which the input was told).
   */
  default void resourceLookupSkipped(Lookup lookup) {}

  /**
   * Where to read a controller's {@link Freshness} at any time, for gauges: called once, when the
   * controller is built. The supplier is cheap and thread-safe.
   */
  default void freshness(Supplier<Freshness> freshness) {}
}
