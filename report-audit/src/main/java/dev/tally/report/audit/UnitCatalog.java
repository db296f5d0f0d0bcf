package dev.tally.report.audit;

import dev.tally.report.api.InvalidReportException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns a census into work units: one unit per kind, except that a namespaced kind heavier than the
 * split threshold becomes one unit per namespace. Splitting is what lets the planner balance a
 * cluster where one kind (Pods) outweighs all others together.
 *
 * <p>The units depend only on the census and the threshold, never on the membership, so a run's set
 * of units stays the same while members come and go.
 */
public final class UnitCatalog {
  private UnitCatalog() {}

  /**
   * The threshold that lets {@link ShardPlanner} keep its balance bound for up to {@code
   * plannedMembers}: a unit may weigh at most {@code epsilon} times the mean load.
   */
  public static long splitThreshold(long totalWeight, int plannedMembers, double epsilon) {
    if (plannedMembers < 1) {
      throw new IllegalArgumentException("plannedMembers must be at least 1");
    }
    return Math.max(1, (long) Math.floor(epsilon * totalWeight / plannedMembers));
  }

  /**
   * The units of a census, in {@link #CANONICAL} order.
   *
   * @param splitAbove a namespaced kind whose total exceeds this is split by namespace
   * @throws InvalidReportException if a kind appears twice
   */
  public static List<WorkUnit> units(List<KindCensus> census, long splitAbove) {
    checkUnique(census);
    List<WorkUnit> units = new ArrayList<>();
    for (KindCensus k : census) {
      if (k.namespaced() && k.total() > splitAbove && !k.byNamespace().isEmpty()) {
        for (Map.Entry<String, Long> e : k.byNamespace().entrySet()) {
          units.add(WorkUnit.ofNamespace(k.gvk(), e.getKey(), clampWeight(e.getValue())));
        }
      } else {
        units.add(WorkUnit.ofKind(k.gvk(), clampWeight(k.total())));
      }
    }
    units.sort(CANONICAL);
    return List.copyOf(units);
  }

  /**
   * The kinds a census must count per namespace: the namespaced kinds whose total exceeds {@link
   * #splitThreshold} of the sum of all totals, for {@code plannedMembers}. The census is taken in
   * two passes: the totals of every kind (one cheap count each), then per-namespace counts of these
   * kinds only; {@link #unitsAsCounted} then splits exactly the kinds that have them.
   *
   * @param totals one entry per kind with its total; per-namespace counts are ignored
   * @throws InvalidReportException if a kind appears twice
   */
  public static Set<GroupVersionKind> kindsToSplit(
      List<KindCensus> totals, int plannedMembers, double epsilon) {
    checkUnique(totals);
    long all = 0;
    for (KindCensus k : totals) {
      all = Math.addExact(all, k.total());
    }
    long splitAbove = splitThreshold(all, plannedMembers, epsilon);
    Set<GroupVersionKind> split = new TreeSet<>();
    for (KindCensus k : totals) {
      if (k.namespaced() && k.total() > splitAbove) {
        split.add(k.gvk());
      }
    }
    return Collections.unmodifiableSet(split);
  }

  /**
   * The units of a census taken in two passes ({@link #kindsToSplit}): a kind with per-namespace
   * counts becomes one unit per counted namespace, every other kind one unit. The threshold was
   * applied when choosing what to count, against the first pass's totals, so it is not applied
   * again to the per-namespace sums (which objects created in between may have moved).
   *
   * @throws InvalidReportException if a kind appears twice
   */
  public static List<WorkUnit> unitsAsCounted(List<KindCensus> census) {
    return units(census, 0);
  }

  /** Units by id: the order digests and ledgers use. */
  public static final Comparator<WorkUnit> CANONICAL = Comparator.comparing(WorkUnit::id);

  private static void checkUnique(List<KindCensus> census) {
    Set<GroupVersionKind> seen = new HashSet<>();
    for (int i = 0; i < census.size(); i++) {
      KindCensus k = census.get(i);
      if (!seen.add(k.gvk())) {
        throw new InvalidReportException("census[" + i + "].gvk", k.gvk() + " appears twice");
      }
    }
  }

  private static long clampWeight(long count) {
    return Math.max(1, Math.min(WorkUnit.MAX_WEIGHT, count));
  }
}
