package dev.tally.report.bench;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What an operator author writes without Tally, as a competent first try: a map of per-resource
 * reports (plain maps of results keyed by concatenated strings, latest evaluation wins per policy,
 * Kyverno style), and on every flush each namespace's report rebuilt from scratch — iterate all its
 * results, sort them, count the summary, compare with the report published last time.
 *
 * <p>It keeps the merge semantics that matter for the benchmark workload (latest evaluation per
 * subject and policy wins, coverage retracts, deleting a subject drops its results) so that the
 * ratio to Tally compares equal work. It has no tombstones, no liveness, no limits and no content
 * hash: not a strawman, just the obvious design.
 */
public final class BaselineAggregator {

  /** Sort order of a rebuilt report: policy, rule, resource, status. */
  static final Comparator<Result> ORDER =
      Comparator.comparing(Result::source)
          .thenComparing(Result::policy)
          .thenComparing(Result::rule)
          .thenComparing(BaselineAggregator::resourceKey)
          .thenComparing(Result::status);

  /** uid → ("source/policy" → the latest evaluation of that policy for that resource). */
  private final Map<String, Map<String, Evaluation>> perResource = new HashMap<>();

  private final Map<String, String> namespaceOf = new HashMap<>();
  private Map<String, NamespaceReport> published = new HashMap<>();

  /** One namespace's report as last published. */
  public record NamespaceReport(String namespace, List<Result> results, Summary summary) {}

  /** One write, {@code create}, {@code update} or {@code delete} (with no results). */
  public record Write(String namespace, String verb, List<Result> results) {}

  private record Evaluation(
      Timestamp observedAt, long generation, String producer, List<Result> results) {
    boolean isLaterThan(Evaluation o) {
      int c = observedAt.compareTo(o.observedAt);
      if (c == 0) {
        c = Long.compare(generation, o.generation);
      }
      if (c == 0) {
        c = producer.compareTo(o.producer);
      }
      return c > 0;
    }
  }

  /** Takes one producer's evaluation of one subject; later evaluations win per policy. */
  public void apply(PartialReport partial) {
    String uid = partial.subject().uid();
    namespaceOf.put(uid, partial.subject().namespace());
    Map<String, Evaluation> report = perResource.computeIfAbsent(uid, k -> new HashMap<>());
    Map<String, List<Result>> byPolicy = new HashMap<>();
    for (CoverageKey key : partial.effectiveCoverage()) {
      byPolicy.put(key.source() + "/" + key.policy(), new ArrayList<>());
    }
    for (Result r : partial.results()) {
      byPolicy.get(r.source() + "/" + r.policy()).add(r);
    }
    for (var e : byPolicy.entrySet()) {
      Evaluation next =
          new Evaluation(
              partial.observedAt(), partial.generation(), partial.producer(), e.getValue());
      Evaluation current = report.get(e.getKey());
      if (current == null || next.isLaterThan(current)) {
        report.put(e.getKey(), next);
      }
    }
  }

  /** The subject is gone: its results go with it. */
  public void deleteSubject(String uid) {
    perResource.remove(uid);
    namespaceOf.remove(uid);
  }

  /**
   * Rebuilds every namespace's report and returns the writes that differ from what was published.
   */
  public List<Write> flush() {
    Map<String, List<Result>> byNamespace = new HashMap<>();
    for (var e : perResource.entrySet()) {
      List<Result> target =
          byNamespace.computeIfAbsent(namespaceOf.get(e.getKey()), k -> new ArrayList<>());
      for (Evaluation evaluation : e.getValue().values()) {
        target.addAll(evaluation.results());
      }
    }
    Map<String, NamespaceReport> next = new HashMap<>();
    List<Write> writes = new ArrayList<>();
    for (var e : byNamespace.entrySet()) {
      List<Result> results = e.getValue();
      if (results.isEmpty()) {
        continue;
      }
      results.sort(ORDER);
      NamespaceReport report =
          new NamespaceReport(e.getKey(), List.copyOf(results), Summary.of(results));
      next.put(e.getKey(), report);
      NamespaceReport before = published.get(e.getKey());
      if (before == null) {
        writes.add(new Write(e.getKey(), "create", report.results()));
      } else if (!before.summary().equals(report.summary())
          || !before.results().equals(report.results())) {
        writes.add(new Write(e.getKey(), "update", report.results()));
      }
    }
    for (String namespace : published.keySet()) {
      if (!next.containsKey(namespace)) {
        writes.add(new Write(namespace, "delete", List.of()));
      }
    }
    published = next;
    return writes;
  }

  /** The reports as last flushed, by namespace. */
  public Map<String, NamespaceReport> published() {
    return Map.copyOf(published);
  }

  private static String resourceKey(Result r) {
    return r.resources().isEmpty() ? "" : r.resources().get(0).uid();
  }
}
