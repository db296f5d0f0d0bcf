package dev.tally.report.api;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The digest and the encoded size of one result, accumulated while its constructor validates it, so
 * that each string of a result is read once, when it is built, and never again by the merge.
 *
 * <p>The numbers are exactly those of report-merge's {@code Fingerprint.result} (FNV-1a over UTF-16
 * code units of each string, each string's digest finished with SplitMix64's mixer, the fields
 * folded in a fixed order) and {@code EncodedSize.of(Result)} (the bytes of the result's compact
 * UTF-8 JSON as Tally's adapter writes it). Those are the reference implementations; a property
 * test of report-merge checks these equal them on generated results.
 */
final class ResultFacts {
  static final long FNV_OFFSET = 0xcbf29ce484222325L;
  static final long FNV_PRIME = 0x100000001b3L;

  /** The result's digest so far. */
  private long hash = FNV_OFFSET;

  /** The bytes of the result's JSON object so far: its fields, an opening brace. */
  private int bytes = 1;

  private int fields;

  /**
   * Validates {@code value} as {@link Checks#optional} does (or {@link Checks#required} when {@code
   * required}), and folds its digest into the result's and its literal into the JSON's bytes.
   */
  String text(String field, String value, int maxLength, boolean required) {
    if (required) {
      Checks.present(field, value);
    }
    int length = value.length();
    if (length > maxLength) {
      throw new InvalidReportException(
          field, "is " + length + " characters long, at most " + maxLength + " allowed");
    }
    long h = FNV_OFFSET;
    int n = 2;
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      h = (h ^ c) * FNV_PRIME;
      if (c < 0x80) {
        if (c < 0x20) {
          n += (c == '\n' || c == '\t' || c == '\r' || c == '\b' || c == '\f') ? 2 : 6;
        } else if (c == '"' || c == '\\') {
          n += 2;
        } else {
          n += 1;
        }
      } else if (c < 0x800) {
        n += 2;
      } else if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
        if (Character.isHighSurrogate(c)
            && i + 1 < length
            && Character.isLowSurrogate(value.charAt(i + 1))) {
          // a valid pair: one character outside the BMP, 4 bytes of UTF-8
          i++;
          h = (h ^ value.charAt(i)) * FNV_PRIME;
          n += 4;
        } else {
          throw new InvalidReportException(
              field,
              String.format(
                  "holds a lone surrogate U+%04X at index %d, which cannot be encoded",
                  (int) c, i));
        }
      } else {
        n += 3;
      }
    }
    digest(mix((h ^ length) * FNV_PRIME));
    sized(field, n);
    return value;
  }

  /** Folds an enum-like value: its number into the digest, its quoted wire name into the JSON. */
  void quoted(String field, long number, String wireName) {
    value(number);
    raw(field, wireName.length() + 2);
  }

  void severity(@Nullable Severity severity) {
    if (severity == null) {
      value(0L);
    } else {
      quoted("severity", severity.ordinal() + 1L, severity.wireName());
    }
  }

  void scored(@Nullable Boolean scored) {
    value(scored == null ? 0L : scored ? 2L : 1L);
    if (scored != null) {
      raw("scored", scored ? 4 : 5);
    }
  }

  void properties(Map<String, String> properties) {
    hash = map(hash, properties);
    raw("properties", properties.isEmpty() ? 0 : mapBytes(properties));
  }

  void timestamp(@Nullable Timestamp t) {
    // the digest leaves the timestamp out (as Fingerprint.result does): only its bytes count
    if (t == null) {
      return;
    }
    // {"seconds":…,"nanos":…}
    raw(
        "timestamp",
        1
            + "seconds".length()
            + 3
            + digits(t.seconds())
            + 1
            + "nanos".length()
            + 3
            + digits(t.nanos())
            + 1);
  }

  void resources(List<Subject> resources) {
    int n = resources.size();
    value(n);
    if (n == 0) {
      return;
    }
    int json = 1;
    for (int i = 0; i < n; i++) {
      Subject s = resources.get(i);
      digest(subjectDigest(s));
      json += subjectBytes(s) + 1;
    }
    raw("resources", json);
  }

  void selector(@Nullable LabelSelector sel) {
    if (sel == null) {
      value(-2L);
      return;
    }
    long h = map(hash, sel.matchLabels());
    h = (h ^ mix(sel.matchExpressions().size())) * FNV_PRIME;
    for (var req : sel.matchExpressions()) {
      h = string(h, req.key());
      h = string(h, req.operator());
      h = (h ^ mix(req.values().size())) * FNV_PRIME;
      for (String v : req.values()) {
        h = string(h, v);
      }
    }
    hash = h;
    raw("resourceSelector", selectorBytes(sel));
  }

  long digest() {
    return mix(hash);
  }

  int encodedSize() {
    return bytes + 1;
  }

  private void digest(long d) {
    hash = (hash ^ d) * FNV_PRIME;
  }

  private void value(long v) {
    hash = (hash ^ mix(v)) * FNV_PRIME;
  }

  /** A string field whose literal takes {@code literalBytes}; {@code ""} is left out. */
  private void sized(String name, int literalBytes) {
    if (literalBytes > 2) {
      raw(name, literalBytes);
    }
  }

  private void raw(String name, int valueBytes) {
    if (valueBytes == 0) {
      return;
    }
    bytes += (fields++ == 0 ? 0 : 1) + name.length() + 3 + valueBytes;
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  private static long string(long h, String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      h = (h ^ s.charAt(i)) * FNV_PRIME;
    }
    return (h ^ s.length()) * FNV_PRIME;
  }

  private static long stringDigest(String s) {
    return mix(string(FNV_OFFSET, s));
  }

  private static long map(long h, Map<String, String> m) {
    h = (h ^ mix(m.size())) * FNV_PRIME;
    if (m.isEmpty()) {
      return h;
    }
    for (var e : m.entrySet()) {
      h = string(h, e.getKey());
      h = string(h, e.getValue());
    }
    return h;
  }

  private static long subjectDigest(Subject s) {
    long h = FNV_OFFSET;
    h = (h ^ stringDigest(s.apiVersion())) * FNV_PRIME;
    h = (h ^ stringDigest(s.kind())) * FNV_PRIME;
    h = (h ^ stringDigest(s.namespace())) * FNV_PRIME;
    h = (h ^ stringDigest(s.name())) * FNV_PRIME;
    h = (h ^ stringDigest(s.uid())) * FNV_PRIME;
    return mix(h);
  }

  private static int subjectBytes(Subject s) {
    ResultFacts f = new ResultFacts();
    f.sized("apiVersion", literal(s.apiVersion()));
    f.sized("kind", literal(s.kind()));
    f.sized("namespace", literal(s.namespace()));
    f.sized("name", literal(s.name()));
    f.sized("uid", literal(s.uid()));
    return f.encodedSize();
  }

  private static int selectorBytes(LabelSelector s) {
    ResultFacts f = new ResultFacts();
    f.raw("matchLabels", s.matchLabels().isEmpty() ? 0 : mapBytes(s.matchLabels()));
    if (!s.matchExpressions().isEmpty()) {
      int n = 1;
      for (var req : s.matchExpressions()) {
        ResultFacts r = new ResultFacts();
        if (!req.key().isEmpty()) {
          r.raw("key", literal(req.key()));
        }
        if (!req.operator().isEmpty()) {
          r.raw("operator", literal(req.operator()));
        }
        if (!req.values().isEmpty()) {
          int v = 1;
          for (String value : req.values()) {
            v += literal(value) + 1;
          }
          r.raw("values", v);
        }
        n += r.encodedSize() + 1;
      }
      f.raw("matchExpressions", n);
    }
    return f.encodedSize();
  }

  private static int mapBytes(Map<String, String> m) {
    int n = 1;
    for (var e : m.entrySet()) {
      n += literal(e.getKey()) + 1 + literal(e.getValue()) + 1;
    }
    return n;
  }

  /** The bytes of a JSON string literal: quotes, escapes and UTF-8. */
  private static int literal(String s) {
    int n = 2;
    for (int i = 0, len = s.length(); i < len; i++) {
      char c = s.charAt(i);
      if (c < 0x20) {
        n += (c == '\n' || c == '\t' || c == '\r' || c == '\b' || c == '\f') ? 2 : 6;
      } else if (c == '"' || c == '\\') {
        n += 2;
      } else if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isSurrogate(c)) {
        n += 2;
      } else {
        n += 3;
      }
    }
    return n;
  }

  /** The length of {@code Long.toString(v)}. */
  private static int digits(long v) {
    if (v == Long.MIN_VALUE) {
      return 20;
    }
    int n = 1;
    if (v < 0) {
      n++;
      v = -v;
    }
    while (v >= 10) {
      v /= 10;
      n++;
    }
    return n;
  }
}
