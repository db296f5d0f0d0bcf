package dev.tally.report.merge;

import dev.tally.report.api.LabelSelector;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The documented total order of results in an aggregate.
 *
 * <p>Results are ordered by the subject of the partial report that contributed them (namespace,
 * kind, name, uid), then by source and policy, then by {@link #RESULT}: rule, status (pass, fail,
 * warn, error, skip), severity (absent first, then critical to info), category, message, scored,
 * timestamp, properties, resources and resource selector. Two results equal in every field compare
 * equal, and are one result.
 */
final class CanonicalOrder {
  private CanonicalOrder() {}

  /** Subjects by (namespace, kind, name, uid, apiVersion). */
  public static final Comparator<Subject> SUBJECT =
      (a, b) -> {
        if (a == b) {
          return 0;
        }
        int c = compare(a.namespace(), b.namespace());
        if (c == 0) {
          c = compare(a.kind(), b.kind());
        }
        if (c == 0) {
          c = compare(a.name(), b.name());
        }
        if (c == 0) {
          c = compare(a.uid(), b.uid());
        }
        return c != 0 ? c : compare(a.apiVersion(), b.apiVersion());
      };

  /** Results of one (subject, source, policy), by every remaining field. */
  public static final Comparator<Result> RESULT =
      (a, b) -> {
        if (a == b) {
          return 0;
        }
        int c = compare(a.source(), b.source());
        if (c == 0) {
          c = compare(a.policy(), b.policy());
        }
        if (c == 0) {
          c = compare(a.rule(), b.rule());
        }
        if (c == 0) {
          c = a.status().compareTo(b.status());
        }
        if (c == 0) {
          c = optional(a.severity(), b.severity(), Comparator.naturalOrder());
        }
        if (c == 0) {
          c = compare(a.category(), b.category());
        }
        if (c == 0) {
          c = compare(a.message(), b.message());
        }
        if (c == 0) {
          c = optional(a.scored(), b.scored(), Comparator.naturalOrder());
        }
        if (c == 0) {
          c = optional(a.timestamp(), b.timestamp(), Comparator.naturalOrder());
        }
        if (c == 0) {
          c = maps(a.properties(), b.properties());
        }
        if (c == 0) {
          c = lists(a.resources(), b.resources(), SUBJECT);
        }
        if (c == 0) {
          c = optional(a.resourceSelector(), b.resourceSelector(), CanonicalOrder::selectors);
        }
        return c;
      };

  static int compare(String a, String b) {
    return a == b ? 0 : a.compareTo(b);
  }

  private static <T> int optional(Optional<T> a, Optional<T> b, Comparator<T> order) {
    if (a.isEmpty() || b.isEmpty()) {
      return Boolean.compare(a.isPresent(), b.isPresent());
    }
    return order.compare(a.get(), b.get());
  }

  private static int maps(Map<String, String> a, Map<String, String> b) {
    if (a == b) {
      return 0;
    }
    // the model keeps maps sorted by key, so entry order is canonical
    Iterator<Map.Entry<String, String>> ia = a.entrySet().iterator();
    Iterator<Map.Entry<String, String>> ib = b.entrySet().iterator();
    while (ia.hasNext() && ib.hasNext()) {
      var ea = ia.next();
      var eb = ib.next();
      int c = compare(ea.getKey(), eb.getKey());
      if (c == 0) {
        c = compare(ea.getValue(), eb.getValue());
      }
      if (c != 0) {
        return c;
      }
    }
    return Boolean.compare(ia.hasNext(), ib.hasNext());
  }

  private static <T> int lists(List<T> a, List<T> b, Comparator<T> order) {
    if (a == b) {
      return 0;
    }
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int c = order.compare(a.get(i), b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  private static int selectors(LabelSelector a, LabelSelector b) {
    int c = maps(a.matchLabels(), b.matchLabels());
    if (c == 0) {
      c =
          lists(
              a.matchExpressions(),
              b.matchExpressions(),
              (x, y) -> {
                int d = compare(x.key(), y.key());
                if (d == 0) {
                  d = compare(x.operator(), y.operator());
                }
                return d != 0 ? d : lists(x.values(), y.values(), CanonicalOrder::compare);
              });
    }
    return c;
  }
}
