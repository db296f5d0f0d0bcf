package dev.tally.report.merge;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deletions a {@link DefaultReportAggregator} remembers: per (namespace, uid), the latest time
 * the subject was deleted at, so that a report observed before that stays hidden ({@link
 * MergeRule#hidden}). Kept for the retention the configuration states, and never more than its
 * tombstone cap: past the cap the oldest are forgotten early, first in the namespaces remembering
 * the most.
 *
 * <p>{@link DefaultReportAggregator}'s apply/tombstone path changes the registers, records each
 * deletion here and asks this class whether a report is hidden.
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
   * Past the tombstone cap, forgets tombstones (but not {@code keep}'s, just recorded) down to
   * three quarters of the cap, fairly between namespaces: every namespace keeps its newest, up to
   * one level that the kept ones of all namespaces fit under (max-min fairness), so that the oldest
   * are forgotten first in the namespaces remembering the most, and a namespace remembering fewer
   * than the others loses none while one churning tenant is over the level. A deletion is the
   * cluster's fact and is never refused; what is lost is only the guard against a late, older
   * report about a forgotten uid. Dropping a quarter at once keeps the sort this takes to one per
   * quarter of the cap's deletions.
   */
  private void forgetOldestPastCap(SubjectId keep) {
    int cap = maxTombstones;
    if (tombstones.size() <= cap) {
      return;
    }
    int target = Math.max(1, cap - cap / 4);
    Map<String, List<Map.Entry<SubjectId, Timestamp>>> byNamespace = new HashMap<>();
    for (var e : tombstones.entrySet()) {
      byNamespace.computeIfAbsent(e.getKey().namespace(), k -> new ArrayList<>()).add(e);
    }
    int level = level(byNamespace, target);
    // the one just recorded first, then the newest
    Comparator<Map.Entry<SubjectId, Timestamp>> keptFirst =
        Comparator.<Map.Entry<SubjectId, Timestamp>, Boolean>comparing(
                e -> !e.getKey().equals(keep))
            .thenComparing(Map.Entry.<SubjectId, Timestamp>comparingByValue().reversed())
            .thenComparing(e -> e.getKey().uid());
    List<SubjectId> forget = new ArrayList<>();
    for (var entries : byNamespace.values()) {
      if (entries.size() <= level) {
        continue;
      }
      entries.sort(keptFirst);
      int from = level == 0 && entries.get(0).getKey().equals(keep) ? 1 : level;
      for (var e : entries.subList(from, entries.size())) {
        forget.add(e.getKey());
      }
    }
    forget.forEach(tombstones::remove);
    forgotten += forget.size();
    LOG.warn(
        "{} tombstones held, over the cap of {} (maxTombstones): forgot the {} oldest of the"
            + " namespaces remembering more than {} each",
        tombstones.size() + forget.size(),
        cap,
        forget.size(),
        level);
  }

  /**
   * The highest level such that every namespace keeping at most that many of its tombstones keeps
   * {@code target} or fewer in all.
   */
  private static int level(Map<String, ? extends List<?>> byNamespace, int target) {
    int low = 0;
    int high = target;
    while (low < high) {
      int mid = low + (high - low + 1) / 2;
      long kept = 0;
      for (List<?> entries : byNamespace.values()) {
        kept += Math.min(entries.size(), mid);
      }
      if (kept <= target) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return low;
  }
}
