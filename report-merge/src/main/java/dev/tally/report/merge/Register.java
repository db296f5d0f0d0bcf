package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Fingerprint;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.merge.partition.PartitionTrie;
import java.util.Comparator;
import org.jspecify.annotations.Nullable;

/**
 * One last-writer-wins register: what the latest evaluation said about one (subject uid, source,
 * policy). Its content never changes; a later evaluation replaces the register. The output view
 * ({@link #effective} and its digests) depends on liveness and the status filter and is refreshed
 * by the aggregator when those change.
 *
 * <p>A large state holds one of these per (subject, policy), so it keeps only what the hot paths
 * read: the uid is the subject's, the view is the results themselves unless a filter hides some
 * (then a {@link View} holds the rest), and the content digest, read only when two evaluations tie
 * in order, is computed when it is asked for.
 */
final class Register implements PartitionTrie.Member {
  /** Canonical order of registers: by subject, then source and policy. */
  static final Comparator<Register> ORDER =
      (a, b) -> {
        if (a == b) {
          return 0;
        }
        int c = CanonicalOrder.SUBJECT.compare(a.subject, b.subject);
        if (c == 0) {
          c = CanonicalOrder.compare(a.uid(), b.uid());
        }
        return c != 0 ? c : a.key.compareTo(b.key);
      };

  /** {@link #ORDER} as a partition trie orders its members, which are all registers. */
  static final Comparator<PartitionTrie.Member> IN_PARTITION =
      (a, b) -> ORDER.compare((Register) a, (Register) b);

  final CoverageKey key;
  final Subject subject;
  final EvaluationOrder order;
  final Result[] results;

  /**
   * The sum of {@link Result#digest()} over {@link #results}, and the sum of their encoded sizes
   * plus one (a comma) each: computed once per register, not once per use, and kept as totals
   * rather than per result because a filtered view, the only other use, is rare.
   */
  final long resultsHash;

  final int resultsBytes;

  /** The path of this register in a partition trie: a digest of (uid, source, policy). */
  final long pathHash;

  /**
   * The group this register's results go to, decided by the grouping once, when the register is
   * planned (before the aggregator changes anything); null while it holds no results.
   */
  @Nullable GroupKey group;

  /** What of the results goes into aggregates when that is not all of them; else null. */
  private @Nullable View filtered;

  /** A filtered view: the results kept, their bytes (each with a comma) and digest sum. */
  private record View(Result[] results, int bytes, long hash) {}

  Register(Subject subject, CoverageKey key, EvaluationOrder order, Result[] results) {
    this(subject, key, order, results, Fingerprint.pathPrefix(subject.uid()));
  }

  /**
   * The same, with {@link Fingerprint#pathPrefix} of the subject's uid, which every register of the
   * subject shares.
   */
  Register(
      Subject subject,
      CoverageKey key,
      EvaluationOrder order,
      Result[] results,
      long uidPathPrefix) {
    this.key = key;
    this.subject = subject;
    this.order = order;
    this.results = results;
    long hash = 0;
    int bytes = 0;
    for (Result x : results) {
      hash += x.digest(); // computed when x was built
      bytes += x.encodedSize() + 1;
    }
    this.resultsHash = hash;
    this.resultsBytes = bytes;
    this.pathHash = Fingerprint.path(uidPathPrefix, key.source(), key.policy());
  }

  String uid() {
    return subject.uid();
  }

  @Override
  public long pathHash() {
    return pathHash;
  }

  @Override
  public String toString() {
    return "register " + key + " of " + uid();
  }

  /**
   * The digest of the register's whole content, for {@link MergeRule#wins}: needed only when two
   * evaluations tie in order, so it is not held.
   */
  long digest() {
    return MergeRule.digest(Fingerprint.subjectDigest(subject), results.length, resultsHash);
  }

  /** Whether this register's content replaces {@code old}'s (null: nothing held). */
  boolean wins(@Nullable Register old) {
    if (old == null) {
      return true;
    }
    int c = order.compareTo(old.order);
    if (c != 0) {
      return c > 0;
    }
    return MergeRule.wins(order, digest(), old.order, old.digest());
  }

  /** The results that go into aggregates. */
  @Override
  public Result[] effective() {
    View v = filtered;
    return v == null ? results : v.results;
  }

  /** The encoded bytes of {@link #effective}, each with a comma. */
  @Override
  public int effectiveBytes() {
    View v = filtered;
    return v == null ? resultsBytes : v.bytes;
  }

  /** The sum of the digests of {@link #effective}. */
  @Override
  public long effectiveHash() {
    View v = filtered;
    return v == null ? resultsHash : v.hash;
  }

  /**
   * Computes what of the results goes into aggregates under {@code liveness} and the status filter
   * of {@code limits}.
   */
  void refreshView(Liveness liveness, ReportLimits limits) {
    Result[] view;
    if (!liveness.isLive(key)) {
      view = new Result[0];
    } else {
      int keep = 0;
      for (Result x : results) {
        if (keeps(x, liveness, limits)) {
          keep++;
        }
      }
      if (keep == results.length) {
        view = results;
      } else {
        view = new Result[keep];
        int i = 0;
        for (Result x : results) {
          if (keeps(x, liveness, limits)) {
            view[i++] = x;
          }
        }
      }
    }
    if (view == results) {
      filtered = null;
      return;
    }
    int bytes = 0;
    long sum = 0;
    for (Result x : view) {
      bytes += x.encodedSize() + 1;
      sum += x.digest();
    }
    filtered = new View(view, bytes, sum);
  }

  private boolean keeps(Result x, Liveness liveness, ReportLimits limits) {
    return limits.keeps(x.status()) && liveness.isLive(key, x.rule());
  }
}
