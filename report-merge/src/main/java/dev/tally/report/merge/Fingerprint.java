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

  static long value(long h, long v) {
    return (h ^ mix(v)) * FNV_PRIME;
  }

  /** The digest of every field of a result. Equal results, equal digests. */
  static long result(Result r) {
    long h = FNV_OFFSET;
    h = string(h, r.source());
    h = string(h, r.policy());
    h = string(h, r.rule());
    h = value(h, r.status().ordinal());
    h = value(h, r.severity().map(s -> s.ordinal() + 1L).orElse(0L));
    h = string(h, r.category());
    h = string(h, r.message());
    h = value(h, r.scored().map(b -> b ? 2L : 1L).orElse(0L));
    h = map(h, r.properties());
    var ts = r.timestamp();
    if (ts.isPresent()) {
      h = value(h, ts.get().seconds());
      h = value(h, ts.get().nanos() + 1L);
    } else {
      h = value(h, -1L);
    }
    List<Subject> resources = r.resources();
    h = value(h, resources.size());
    for (Subject s : resources) {
      h = subject(h, s);
    }
    var sel = r.resourceSelector();
    h = sel.isPresent() ? selector(h, sel.get()) : value(h, -2L);
    return mix(h);
  }

  static long subject(long h, Subject s) {
    h = string(h, s.apiVersion());
    h = string(h, s.kind());
    h = string(h, s.namespace());
    h = string(h, s.name());
    return string(h, s.uid());
  }

  static long map(long h, Map<String, String> m) {
    h = value(h, m.size());
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
