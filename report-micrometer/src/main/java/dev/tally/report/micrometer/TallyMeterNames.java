package dev.tally.report.micrometer;

import java.util.List;

/**
 * The names and tags of the meters {@link MicrometerTallyMetrics} registers: what a dashboard or an
 * alert refers to, one place. {@link MicrometerTallyMetrics} implements it (so {@code
 * MicrometerTallyMetrics.WRITES} names them too) and keeps the meters themselves.
 */
public interface TallyMeterNames {
  /** Partial reports the aggregator accepted. */
  String PARTIALS_APPLIED = "tally.partials.applied";

  /** Partial reports refused, tagged {@code reason}. */
  String PARTIALS_REJECTED = "tally.partials.rejected";

  /** Partial reports a producer wrote, tagged {@code verb}. */
  String PARTIALS_PUBLISHED = "tally.partials.published";

  /** Writes of aggregate reports, tagged {@code verb}. */
  String WRITES = "tally.writes";

  /** Writes that met a conflict or a vanished object. */
  String CONFLICTS = "tally.conflicts";

  /** Requests retried, tagged {@code code}. */
  String RETRIES = "tally.retries";

  /** Writes skipped because the object already held the desired content. */
  String WRITES_SUPPRESSED = "tally.writes.suppressed";

  /** How long flushes took (a timer). */
  String FLUSH = "tally.flush";

  /** Changes each flush wrote (a distribution summary). */
  String FLUSH_CHANGES = "tally.flush.changes";

  /** Rebuilds of the controller's view. */
  String RESYNCS = "tally.resyncs";

  /** Changes the rebuilds found. */
  String RESYNC_CHANGES = "tally.resync.changes";

  /**
   * Input objects deleted after what they said was written (an input that retires what it merged:
   * Kyverno's intermediate reports by default).
   */
  String INPUTS_DELETED = "tally.inputs.deleted";

  /**
   * Input objects deleted because the resource they name never appeared (Kyverno's admission
   * reports).
   */
  String INPUTS_EXPIRED = "tally.inputs.expired";

  /** Input objects read and still in the cluster, waiting to be deleted. */
  String INPUTS_WAITING = "tally.inputs.waiting";

  /** Re-reads of the objects whose writes met a conflict, a vanished object or a failure. */
  String REREADS = "tally.rereads";

  /** Objects the re-reads read. */
  String REREAD_OBJECTS = "tally.reread.objects";

  /** Aggregates whose content the API server refused for good (400, 413, 422): parked. */
  String WRITES_REFUSED = "tally.writes.refused";

  /** Aggregates waiting to be written again, each after its own backoff. */
  String WRITES_IN_TROUBLE = "tally.writes.in.trouble";

  /** Caps reached, tagged {@code cap}. */
  String CAPS_REACHED = "tally.caps.reached";

  /** Rejections not recorded as Events because their namespace used up its share. */
  String EVENTS_SUPPRESSED = "tally.rejections.events.suppressed";

  /** The tag of {@link #CAPS_REACHED}. */
  String TAG_CAP = "cap";

  /**
   * The values of {@link #TAG_CAP}: the caps of {@code InputCaps} and of the Kyverno input; any
   * other name counts as {@code other}.
   */
  List<String> CAPS =
      List.of(
          "maxResultsPerPartial",
          "maxCoveragePerPartial",
          "maxSubjectsPerProducer",
          "maxResultsPerNamespace",
          "maxRegistersPerNamespace",
          "maxProducersPerNamespace",
          "maxResults",
          "maxRegisters",
          "maxTombstones",
          "maxAwaitingAdoptionPerNamespace",
          "maxAwaitingAdoption",
          "other");

  /**
   * Reads of a resource an input object names that failed (the shared lookups of the Kyverno and
   * Gatekeeper inputs), tagged {@code lookup}.
   */
  String LOOKUPS_FAILED = "tally.lookups.failed";

  /** Reads not made because the kind is not among the lookup kinds, tagged {@code lookup}. */
  String LOOKUPS_SKIPPED = "tally.lookups.skipped";

  /** The tag of {@link #LOOKUPS_FAILED} and {@link #LOOKUPS_SKIPPED}. */
  String TAG_LOOKUP = "lookup";

  /** Seconds the oldest input not yet written has waited (a gauge). */
  String OLDEST_INPUT_AGE = "tally.input.oldest.age";

  /** Seconds since the last flush whose writes all succeeded (a gauge). */
  String LAST_FLUSH_AGE = "tally.flush.last.age";

  /** Seconds since the last resync that listed, diffed and wrote its difference (a gauge). */
  String LAST_RESYNC_AGE = "tally.resync.last.age";

  /** The tag of {@link #PARTIALS_REJECTED}. */
  String TAG_REASON = "reason";

  /** The tag of {@link #WRITES} and {@link #PARTIALS_PUBLISHED}. */
  String TAG_VERB = "verb";

  /** The tag of {@link #RETRIES}. */
  String TAG_CODE = "code";
}
