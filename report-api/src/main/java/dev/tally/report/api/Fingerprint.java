package dev.tally.report.api;

import java.util.List;
import java.util.Map;

/**
 * Stable 64-bit digests of strings, subjects and the parts of reports: FNV-1a over UTF-16 code
 * units, finished with the SplitMix64 mixer. The same value in every JVM, run and platform, so
 * digests can be stored in the cluster and compared after a restart. Maps are digested in key order
 * (the model keeps them sorted).
 *
 * <p>The one implementation of Tally's digests: a {@link Result} folds its fields with these steps
 * while it is built ({@link Result#digest()}, in the order {@code ResultFacts} states), and
 * report-merge makes its content hashes, partition paths and the order of evaluations of them.
 */
public final class Fingerprint {
  static final long FNV_OFFSET = 0xcbf29ce484222325L;
  static final long FNV_PRIME = 0x100000001b3L;

  private Fingerprint() {}

  /** SplitMix64's finaliser: a bijection that spreads every input bit over the output. */
  public static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** One UTF-16 code unit of a string folded into {@code h}. */
  static long step(long h, char c) {
    return (h ^ c) * FNV_PRIME;
  }

  /** Ends a string of {@code length} code units: ("ab","c") and ("a","bc") differ. */
  static long end(long h, int length) {
    return (h ^ length) * FNV_PRIME;
  }

  /** {@code s} folded into {@code h}, its length ending it. */
  public static long string(long h, String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      h = step(h, s.charAt(i));
    }
    return end(h, s.length());
  }

  /** The digest of a sequence of strings. */
  public static long of(String... parts) {
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
  public static long pathPrefix(String uid) {
    return string(FNV_OFFSET, uid);
  }

  /** {@code of(uid, source, policy)} from {@code pathPrefix(uid)}. */
  public static long path(long prefix, String source, String policy) {
    return mix(string(string(prefix, source), policy));
  }

  /** A number folded into {@code h}. */
  public static long value(long h, long v) {
    return (h ^ mix(v)) * FNV_PRIME;
  }

  /**
   * The digest of one string on its own. A result's digest is made of its strings' digests rather
   * than of their characters.
   */
  public static long stringDigest(String s) {
    return mix(string(FNV_OFFSET, s));
  }

  /** Folds an already mixed digest into {@code h}. */
  static long digest(long h, long d) {
    return (h ^ d) * FNV_PRIME;
  }

  /**
   * A result's digest with its timestamp folded in: what tells apart two results that differ only
   * in when they were observed, for the order of evaluations.
   */
  public static long withTimestamp(Result r) {
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
  public static long subject(long h, Subject s) {
    return digest(h, subjectDigest(s));
  }

  /** The digest of a subject on its own, from its strings' digests. */
  public static long subjectDigest(Subject s) {
    long h = FNV_OFFSET;
    h = digest(h, stringDigest(s.apiVersion()));
    h = digest(h, stringDigest(s.kind()));
    h = digest(h, stringDigest(s.namespace()));
    h = digest(h, stringDigest(s.name()));
    h = digest(h, stringDigest(s.uid()));
    return mix(h);
  }

  /** A list of subjects folded into {@code h}: its size, then each subject's digest. */
  static long subjects(long h, List<Subject> subjects) {
    h = value(h, subjects.size());
    for (int i = 0, n = subjects.size(); i < n; i++) {
      h = digest(h, subjectDigest(subjects.get(i)));
    }
    return h;
  }

  /** A map folded into {@code h}, in its (sorted) key order. */
  public static long map(long h, Map<String, String> m) {
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

  /** A label selector folded into {@code h}. */
  public static long selector(long h, LabelSelector sel) {
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

  /** {@code v} as 16 lower-case hex digits. */
  public static String hex(long v) {
    String s = Long.toHexString(v);
    return "0".repeat(16 - s.length()) + s;
  }
}
