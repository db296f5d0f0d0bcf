package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import java.util.Comparator;
import org.jspecify.annotations.Nullable;

/**
 * One last-writer-wins register: what the latest evaluation said about one (subject uid, source,
 * policy). Its content never changes; a later evaluation replaces the register. The output view
 * ({@link #effective} and its digests) depends on liveness and the status filter and is refreshed
 * by the aggregator when those change.
 */
final class Register {
  /** Canonical order of registers: by subject, then source and policy. */
  static final Comparator<Register> ORDER =
      (a, b) -> {
        if (a == b) {
          return 0;
        }
        int c = CanonicalOrder.SUBJECT.compare(a.subject, b.subject);
        if (c == 0) {
          c = CanonicalOrder.compare(a.uid, b.uid);
        }
        return c != 0 ? c : a.key.compareTo(b.key);
      };

  final String uid;
  final CoverageKey key;
  final Subject subject;
  final Order order;
  final Result[] results;
  final long digest;

  /**
   * The sum of {@link Fingerprint#result} over {@link #results}, and the sum of their encoded sizes
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

  Result[] effective;
  int effectiveBytes;
  long effectiveHash;

  Register(Subject subject, CoverageKey key, Order order, Result[] results) {
    this(subject, key, order, results, ValueFacts.DIRECT);
  }

  /** A register whose digests and sizes come from {@code facts}. */
  Register(Subject subject, CoverageKey key, Order order, Result[] results, ValueFacts facts) {
    this(subject, key, order, results, facts, Fingerprint.pathPrefix(subject.uid()));
  }

  /**
   * The same, with {@link Fingerprint#pathPrefix} of the subject's uid, which every register of the
   * subject shares.
   */
  Register(
      Subject subject,
      CoverageKey key,
      Order order,
      Result[] results,
      ValueFacts facts,
      long uidPathPrefix) {
    this.uid = subject.uid();
    this.key = key;
    this.subject = subject;
    this.order = order;
    this.results = results;
    long hash = 0;
    int bytes = 0;
    for (Result x : results) {
      hash += x.digest(); // equal to Fingerprint.result(x), computed when x was built
      bytes += x.encodedSize() + 1;
    }
    this.resultsHash = hash;
    this.resultsBytes = bytes;
    this.digest = MergeRule.digest(facts.digest(subject), results.length, hash);
    this.pathHash = Fingerprint.path(uidPathPrefix, key.source(), key.policy());
    this.effective = results;
    this.effectiveBytes = bytes;
    this.effectiveHash = hash;
  }
}
