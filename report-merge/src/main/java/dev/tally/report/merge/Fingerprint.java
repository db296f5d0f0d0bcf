package dev.tally.report.merge;

import dev.tally.report.api.LabelSelector;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import java.util.List;
import java.util.Map;

/**
 * Stable 64-bit digests of strings and results: FNV-1a over UTF-16 code units, finished with the
 * SplitMix64 mixer. The same value in every JVM, run and platform, so digests can be stored in the
 * cluster and compared after a restart. Maps are digested in key order (the model keeps them
 * sorted).
 */
final class Fingerprint {
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private Fingerprint() {}

  /** SplitMix64's finaliser: a bijection that spreads every input bit over the output. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  static long string(long h, String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      h = (h ^ s.charAt(i)) * FNV_PRIME;
    }
    // the length ends the field, so ("ab","c") and ("a","bc") differ
    return (h ^ s.length()) * FNV_PRIME;
  }

  static long of(String... parts) {
    long h = FNV_OFFSET;
    for (String p : parts) {
      h = string(h, p);
    }
    return mix(h);
  }

  /**
   * {@link #of}{@code (uid, source, policy)} in two steps: the state after {@code uid}, computed
   * once for all registers of a subject, then {@link #path} for each (source, policy).
   */
  static long pathPrefix(String uid) {
    return string(FNV_OFFSET, uid);
  }

  /** {@code of(uid, source, policy)} from {@code pathPrefix(uid)}. */
  static long path(long prefix, String source, String policy) {
    return mix(string(string(prefix, source), policy));
  }

  static long value(long h, long v) {
    return (h ^ mix(v)) * FNV_PRIME;
  }

  /**
   * The digest of one string on its own. A result's digest is made of its strings' digests rather
   * than of their characters, so that an aggregator computes each distinct string's digest once.
   */
  static long stringDigest(String s) {
    return mix(string(FNV_OFFSET, s));
  }

  /** Folds an already mixed digest into {@code h}. */
  private static long digest(long h, long d) {
    return (h ^ d) * FNV_PRIME;
  }

  /**
   * The digest of every field of a result but its timestamp. Equal results, equal digests; so do
   * results that differ only in when they were observed (DESIGN section 6, "No-op suppression").
   */
  static long result(Result r) {
    return result(r, ValueFacts.DIRECT);
  }

  /** {@link #result(Result)} from the strings' and subjects' digests in {@code facts}. */
  static long result(Result r, ValueFacts facts) {
    long h = FNV_OFFSET;
    h = digest(h, facts.digest(r.source()));
    h = digest(h, facts.digest(r.policy()));
    h = digest(h, facts.digest(r.rule()));
    h = value(h, r.status().ordinal());
    var severity = r.severity();
    h = value(h, severity.isPresent() ? severity.get().ordinal() + 1L : 0L);
    h = digest(h, facts.digest(r.category()));
    h = digest(h, facts.digest(r.message()));
    var scored = r.scored();
    h = value(h, scored.isPresent() ? (scored.get() ? 2L : 1L) : 0L);
    h = map(h, r.properties());
    // the timestamp is left out: it says when the verdict was observed, not what it is, so a
    // re-evaluation that states the same verdict at a later time hashes alike and is not rewritten
    List<Subject> resources = r.resources();
    h = value(h, resources.size());
    for (int i = 0, n = resources.size(); i < n; i++) {
      h = digest(h, facts.digest(resources.get(i)));
    }
    var sel = r.resourceSelector();
    h = sel.isPresent() ? selector(h, sel.get()) : value(h, -2L);
    return mix(h);
  }

  /**
   * A result's digest with its timestamp folded in: what tells apart two results that differ only
   * in when they were observed, for the order of evaluations ({@link Order#content}).
   */
  static long withTimestamp(Result r) {
    long h = r.digest();
    var ts = r.timestamp();
    if (ts.isPresent()) {
      h = value(value(h, ts.get().seconds()), ts.get().nanos() + 1L);
    } else {
      h = value(h, -1L);
    }
    return mix(h);
  }

  /** A subject's digest folded into {@code h}. */
  static long subject(long h, Subject s) {
    return digest(h, subjectDigest(s, ValueFacts.DIRECT));
  }

  /** The digest of a subject on its own, from its strings' digests. */
  static long subjectDigest(Subject s, ValueFacts facts) {
    long h = FNV_OFFSET;
    h = digest(h, facts.digest(s.apiVersion()));
    h = digest(h, facts.digest(s.kind()));
    h = digest(h, facts.digest(s.namespace()));
    h = digest(h, facts.digest(s.name()));
    h = digest(h, facts.digest(s.uid()));
    return mix(h);
  }

  static long map(long h, Map<String, String> m) {
    h = value(h, m.size());
    if (m.isEmpty()) {
      return h; // the common case, without an iterator
    }
    for (var e : m.entrySet()) {
      h = string(h, e.getKey());
      h = string(h, e.getValue());
    }
    return h;
  }

  static long selector(long h, LabelSelector sel) {
    h = map(h, sel.matchLabels());
    h = value(h, sel.matchExpressions().size());
    for (var req : sel.matchExpressions()) {
      h = string(h, req.key());
      h = string(h, req.operator());
      h = value(h, req.values().size());
      for (String v : req.values()) {
        h = string(h, v);
      }
    }
    return h;
  }

  static String hex(long v) {
    String s = Long.toHexString(v);
    return "0".repeat(16 - s.length()) + s;
  }
}
