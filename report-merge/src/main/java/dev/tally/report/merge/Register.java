package dev.tally.report.merge;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import java.util.Comparator;

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
   * {@link Fingerprint#result} of each of {@link #results}: hashing every character of a result is
   * the largest cost of an apply, so it is done once per register, not once per use.
   */
  final long[] resultDigests;

  /** The path of this register in a partition trie: a digest of (uid, source, policy). */
  final long pathHash;

  Result[] effective;
  int effectiveBytes;
  long effectiveHash;

  Register(Subject subject, CoverageKey key, Order order, Result[] results) {
    this.uid = subject.uid();
    this.key = key;
    this.subject = subject;
    this.order = order;
    this.results = results;
    this.resultDigests = MergeRule.resultDigests(results);
    this.digest = MergeRule.digest(subject, resultDigests);
    this.pathHash = Fingerprint.of(uid, key.source(), key.policy());
    this.effective = results;
  }
}
