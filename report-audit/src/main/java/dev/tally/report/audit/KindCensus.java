package dev.tally.report.audit;

import dev.tally.report.api.InvalidReportException;
import java.util.Map;
import java.util.TreeMap;

/**
 * How many objects of a kind there are, in total and per namespace: the estimate a plan is weighed
 * with (from the last run's counts, or from {@code remainingItemCount}).
 *
 * @param gvk the kind
 * @param namespaced whether objects of the kind live in namespaces
 * @param total the object count over all namespaces
 * @param byNamespace per-namespace counts of a namespaced kind, empty when unknown (then the kind
 *     cannot be split); always empty for a cluster-scoped kind
 */
public record KindCensus(
    GroupVersionKind gvk, boolean namespaced, long total, Map<String, Long> byNamespace) {
  public KindCensus {
    if (total < 0) {
      throw new InvalidReportException("total", "must not be negative, was " + total);
    }
    if (!namespaced && !byNamespace.isEmpty()) {
      throw new InvalidReportException(
          "byNamespace", "a cluster-scoped kind " + gvk + " has no namespaces");
    }
    for (var e : byNamespace.entrySet()) {
      if (e.getValue() < 0) {
        throw new InvalidReportException(
            "byNamespace[" + e.getKey() + "]", "must not be negative, was " + e.getValue());
      }
    }
    byNamespace = Map.copyOf(new TreeMap<>(byNamespace));
  }

  public static KindCensus clusterScoped(GroupVersionKind gvk, long total) {
    return new KindCensus(gvk, false, total, Map.of());
  }

  /** A namespaced kind whose total is the sum of its per-namespace counts. */
  public static KindCensus namespaced(GroupVersionKind gvk, Map<String, Long> byNamespace) {
    long total = 0;
    for (long c : byNamespace.values()) {
      total += c;
    }
    return new KindCensus(gvk, true, total, byNamespace);
  }
}
