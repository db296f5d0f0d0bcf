package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Fingerprint;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The merge rule of docs/DESIGN.md in one place, used by both the aggregator and {@link
 * ReportState}: which register content wins, what a tombstone hides, and how a partial report's
 * results become the content of its registers.
 */
final class MergeRule {
  private static final Result[] NONE = new Result[0];

  private MergeRule() {}

  /**
   * Whether content with {@code order} and {@code digest} replaces the register's. Later order wins
   * ({@link EvaluationOrder} already decides evaluations that tie in time, generation and producer
   * by what they state); the register digest only decides what is then equal up to 64 bits, so that
   * merging stays commutative.
   */
  static boolean wins(
      EvaluationOrder order, long digest, @Nullable EvaluationOrder existing, long existingDigest) {
    if (existing == null) {
      return true;
    }
    int c = order.compareTo(existing);
    return c > 0 || (c == 0 && Long.compareUnsigned(digest, existingDigest) > 0);
  }

  /**
   * Refuses a partial report whose subject has no uid yet: registers are keyed by the uid, so it
   * can only be merged once adopted.
   */
  static PartialReport mergeable(@Nullable PartialReport p) {
    InvalidReportException.requireNonNull("partial", p);
    if (!p.adopted()) {
      throw new InvalidReportException(
          "subject.uid",
          "is required to merge; " + p.subject().display() + " has not been adopted yet");
    }
    return p;
  }

  /** Whether a contribution observed at {@code observedAt} is hidden by a deletion. */
  static boolean hidden(Timestamp observedAt, @Nullable Timestamp deletedAt) {
    return deletedAt != null && observedAt.compareTo(deletedAt) <= 0;
  }

  /**
   * The register contents a partial report states: for every key of its coverage, its results for
   * that key, each about the subject when it names no object, without duplicates, in canonical
   * order. Keys without results map to an empty array: the retraction.
   */
  static Map<CoverageKey, Result[]> registerContents(PartialReport p) {
    List<Subject> subjectOnly = List.of(p.subject());
    return registerContents(p, r -> aboutSubject(r, subjectOnly));
  }

  /**
   * {@code r}, about the partial report's subject ({@code subjectOnly}) when it names no object.
   */
  static Result aboutSubject(Result r, List<Subject> subjectOnly) {
    return r.resources().isEmpty() && r.resourceSelector().isEmpty()
        ? r.toBuilder().resources(subjectOnly).build()
        : r;
  }

  /**
   * The same, with each result first made {@code normal}: about the subject when it names no
   * object, and made of whatever instances the caller holds.
   */
  static Map<CoverageKey, Result[]> registerContents(
      PartialReport p, UnaryOperator<Result> normal) {
    var coverage = p.effectiveCoverage();
    List<Result> results = p.results();
    Map<CoverageKey, Result[]> out = new HashMap<>(coverage.size() * 2);
    if (coverage.size() > FEW_KEYS) {
      Map<CoverageKey, List<Result>> byKey = new HashMap<>(coverage.size() * 2);
      for (Result r : results) {
        byKey.computeIfAbsent(r.coverageKey(), k -> new ArrayList<>()).add(normal.apply(r));
      }
      for (CoverageKey key : coverage) {
        List<Result> list = byKey.get(key);
        out.put(key, list == null ? NONE : sortedDistinct(list.toArray(NONE)));
      }
      return out;
    }
    // a handful of keys: each result finds its key by comparing strings, no key made per result
    CoverageKey[] keys = new CoverageKey[coverage.size()];
    int next = 0;
    for (CoverageKey key : coverage) {
      keys[next++] = key;
    }
    Result[] normalized = new Result[results.size()];
    int[] keyOf = new int[normalized.length];
    int[] counts = new int[keys.length];
    for (int i = 0; i < normalized.length; i++) {
      Result r = normal.apply(results.get(i));
      int k = 0;
      while (!(r.policy().equals(keys[k].policy()) && r.source().equals(keys[k].source()))) {
        k++; // every result is in the coverage, checked when the partial report was made
      }
      normalized[i] = r;
      keyOf[i] = k;
      counts[k]++;
    }
    for (int k = 0; k < keys.length; k++) {
      if (counts[k] == 0) {
        out.put(keys[k], NONE);
        continue;
      }
      Result[] mine = new Result[counts[k]];
      int n = 0;
      for (int i = 0; i < normalized.length; i++) {
        if (keyOf[i] == k) {
          mine[n++] = normalized[i];
        }
      }
      out.put(keys[k], sortedDistinct(mine));
    }
    return out;
  }

  /** Up to this many keys, results find theirs by comparison rather than by a map. */
  private static final int FEW_KEYS = 8;

  private static Result[] sortedDistinct(Result[] a) {
    if (a.length < 2) {
      return a;
    }
    Arrays.sort(a, CanonicalOrder.RESULT);
    int n = 1;
    for (int i = 1; i < a.length; i++) {
      if (CanonicalOrder.RESULT.compare(a[i], a[n - 1]) != 0) {
        a[n++] = a[i];
      }
    }
    return n == a.length ? a : Arrays.copyOf(a, n);
  }

  /** The digest of a register's whole content, for {@link #wins}. */
  static long digest(Subject subject, Result[] results) {
    long sum = 0;
    for (Result r : results) {
      sum += r.digest();
    }
    return digest(Fingerprint.subjectDigest(subject), results.length, sum);
  }

  /**
   * The same digest from the subject's digest ({@link Fingerprint#subjectDigest}) and the number
   * and sum of the results' own digests ({@link Result#digest()}).
   */
  static long digest(long subjectDigest, int count, long resultDigestSum) {
    return Fingerprint.mix(Fingerprint.value(count, subjectDigest) + resultDigestSum);
  }
}
