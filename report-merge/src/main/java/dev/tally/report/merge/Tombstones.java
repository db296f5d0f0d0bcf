package dev.tally.report.merge;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deletions a {@link DefaultReportAggregator} remembers: per (namespace, uid), the latest time
 * the subject was deleted at, so that a report observed before that stays hidden ({@link
 * MergeRule#hidden}). Kept for the retention the configuration states, and never more than its
 * tombstone cap: past the cap the oldest are forgotten early.
 *
 * <p>Split off the aggregator's apply/tombstone path along the line between the registers it
 * changes and the deletions it remembers.
 */
final class Tombstones {
  /** The aggregator's logger: what is logged here is the aggregator's doing. */
  private static final Logger LOG = LoggerFactory.getLogger(DefaultReportAggregator.class);

  private final int maxTombstones;
  private final long retentionSeconds;
  private final Map<SubjectId, Timestamp> tombstones = new HashMap<>();

  /** Tombstones forgotten early because the tombstone cap was reached. */
  private long forgotten;

  Tombstones(AggregatorConfig config) {
    this.maxTombstones = config.caps().maxTombstones();
    this.retentionSeconds = config.tombstoneRetentionSeconds();
  }

  /**
   * Whether a report about {@code uid} in {@code namespace} observed at {@code observedAt} is
   * hidden.
   */
  boolean hides(String namespace, String uid, Timestamp observedAt) {
    return !tombstones.isEmpty()
        && MergeRule.hidden(observedAt, tombstones.get(new SubjectId(namespace, uid)));
  }

  /**
   * Records that {@code id} was deleted at {@code deletedAt}, and returns the time it counts as
   * deleted at: the later of that and any deletion recorded before.
   */
  Timestamp record(SubjectId id, Timestamp deletedAt) {
    Timestamp effective = tombstones.merge(id, deletedAt, (a, b) -> a.compareTo(b) >= 0 ? a : b);
    forgetOldestPastCap(id);
    return effective;
  }

  /** Takes over the tombstones of a state. */
  void putAll(Map<SubjectId, Timestamp> state) {
    tombstones.putAll(state);
  }

  /** Forgets the tombstones past their retention at {@code now}; returns how many. */
  int expire(Timestamp now) {
    int before = tombstones.size();
    tombstones.values().removeIf(t -> t.plusSeconds(retentionSeconds).compareTo(now) < 0);
    return before - tombstones.size();
  }

  int size() {
    return tombstones.size();
  }

  /** How many were forgotten early because the cap was reached. */
  long forgotten() {
    return forgotten;
  }

  /** The tombstones, read only. */
  Map<SubjectId, Timestamp> asMap() {
    return Collections.unmodifiableMap(tombstones);
  }

  /**
   * Past the tombstone cap, forgets the oldest tombstones (but not {@code keep}'s, just recorded)
   * down to three quarters of the cap: their retention ends early. A deletion is the cluster's fact
   * and is never refused; what is lost is only the guard against a late, older report about a
   * forgotten uid. Dropping a quarter at once keeps the sort this takes to one per quarter of the
   * cap's deletions.
   */
  private void forgetOldestPastCap(SubjectId keep) {
    int cap = maxTombstones;
    if (tombstones.size() <= cap) {
      return;
    }
    int target = Math.max(1, cap - cap / 4);
    List<Map.Entry<SubjectId, Timestamp>> oldest = new ArrayList<>(tombstones.entrySet());
    oldest.sort(
        Map.Entry.<SubjectId, Timestamp>comparingByValue()
            .thenComparing(e -> e.getKey().namespace())
            .thenComparing(e -> e.getKey().uid()));
    List<SubjectId> forget = new ArrayList<>();
    for (var e : oldest) {
      if (tombstones.size() - forget.size() <= target) {
        break;
      }
      if (!e.getKey().equals(keep)) {
        forget.add(e.getKey());
      }
    }
    forget.forEach(tombstones::remove);
    forgotten += forget.size();
    LOG.warn(
        "{} tombstones held, over the cap of {} (maxTombstones): forgot the {} oldest",
        tombstones.size() + forget.size(),
        cap,
        forget.size());
  }
}
