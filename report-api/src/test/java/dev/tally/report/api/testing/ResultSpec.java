package dev.tally.report.api.testing;

import dev.tally.report.api.LabelSelector;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a result's digest and encoded size are, computed the plain way from their specification and
 * independently of the model's own implementation ({@code Fingerprint}, {@code EncodedSize} and the
 * folding a result does while it is built), for tests to hold that implementation to it.
 *
 * <ul>
 *   <li>The digest: FNV-1a (64 bit) over the UTF-16 code units of each string, the string's length
 *       folded in after them, finished with SplitMix64's mixer; the result's fields folded in a
 *       fixed order (source, policy, rule, status, severity, category, message, scored, properties,
 *       resources, resource selector), the timestamp left out.
 *   <li>The encoded size: the bytes of the result's compact UTF-8 JSON as Tally's adapter writes
 *       it, produced here as text: empty strings, empty maps and lists and absent values left out.
 * </ul>
 */
public final class ResultSpec {
  private static final long OFFSET = 0xcbf29ce484222325L;
  private static final long PRIME = 0x100000001b3L;

  private ResultSpec() {}

  /** The digest {@link Result#digest()} is specified to be. */
  public static long digest(Result r) {
    long h = OFFSET;
    h = fold(h, text(r.source()));
    h = fold(h, text(r.policy()));
    h = fold(h, text(r.rule()));
    h = number(h, r.status().ordinal());
    h = number(h, r.severity().map(s -> s.ordinal() + 1L).orElse(0L));
    h = fold(h, text(r.category()));
    h = fold(h, text(r.message()));
    h = number(h, r.scored().map(b -> b ? 2L : 1L).orElse(0L));
    h = map(h, r.properties());
    h = number(h, r.resources().size());
    for (Subject s : r.resources()) {
      h = fold(h, subject(s));
    }
    if (r.resourceSelector().isPresent()) {
      LabelSelector sel = r.resourceSelector().get();
      h = map(h, sel.matchLabels());
      h = number(h, sel.matchExpressions().size());
      for (var req : sel.matchExpressions()) {
        h = chars(chars(h, req.key()), req.operator());
        h = number(h, req.values().size());
        for (String v : req.values()) {
          h = chars(h, v);
        }
      }
    } else {
      h = number(h, -2L);
    }
    return mix(h);
  }

  /** The size {@link Result#encodedSize()} is specified to be: the bytes of {@link #json}. */
  public static int encodedSize(Result r) {
    return json(r).getBytes(StandardCharsets.UTF_8).length;
  }

  /** The compact JSON object of a result, as Tally's adapter writes it. */
  public static String json(Result r) {
    List<String> fields = new ArrayList<>();
    string(fields, "source", r.source());
    string(fields, "policy", r.policy());
    string(fields, "rule", r.rule());
    fields.add(quote("result") + ":" + quote(r.status().wireName()));
    r.severity().ifPresent(s -> fields.add(quote("severity") + ":" + quote(s.wireName())));
    string(fields, "category", r.category());
    string(fields, "message", r.message());
    r.scored().ifPresent(b -> fields.add(quote("scored") + ":" + b));
    if (!r.properties().isEmpty()) {
      fields.add(quote("properties") + ":" + object(r.properties()));
    }
    r.timestamp()
        .ifPresent(
            t ->
                fields.add(
                    quote("timestamp")
                        + ":{"
                        + quote("seconds")
                        + ":"
                        + t.seconds()
                        + ","
                        + quote("nanos")
                        + ":"
                        + t.nanos()
                        + "}"));
    if (!r.resources().isEmpty()) {
      List<String> subjects = new ArrayList<>();
      for (Subject s : r.resources()) {
        subjects.add(subjectJson(s));
      }
      fields.add(quote("resources") + ":[" + String.join(",", subjects) + "]");
    }
    r.resourceSelector()
        .ifPresent(sel -> fields.add(quote("resourceSelector") + ":" + selectorJson(sel)));
    return "{" + String.join(",", fields) + "}";
  }

  private static String subjectJson(Subject s) {
    List<String> fields = new ArrayList<>();
    string(fields, "apiVersion", s.apiVersion());
    string(fields, "kind", s.kind());
    string(fields, "namespace", s.namespace());
    string(fields, "name", s.name());
    string(fields, "uid", s.uid());
    return "{" + String.join(",", fields) + "}";
  }

  private static String selectorJson(LabelSelector sel) {
    List<String> fields = new ArrayList<>();
    if (!sel.matchLabels().isEmpty()) {
      fields.add(quote("matchLabels") + ":" + object(sel.matchLabels()));
    }
    if (!sel.matchExpressions().isEmpty()) {
      List<String> expressions = new ArrayList<>();
      for (var req : sel.matchExpressions()) {
        List<String> e = new ArrayList<>();
        string(e, "key", req.key());
        string(e, "operator", req.operator());
        if (!req.values().isEmpty()) {
          List<String> values = new ArrayList<>();
          req.values().forEach(v -> values.add(quote(v)));
          e.add(quote("values") + ":[" + String.join(",", values) + "]");
        }
        expressions.add("{" + String.join(",", e) + "}");
      }
      fields.add(quote("matchExpressions") + ":[" + String.join(",", expressions) + "]");
    }
    return "{" + String.join(",", fields) + "}";
  }

  private static void string(List<String> fields, String name, String value) {
    if (!value.isEmpty()) {
      fields.add(quote(name) + ":" + quote(value));
    }
  }

  private static String object(Map<String, String> m) {
    List<String> entries = new ArrayList<>();
    m.forEach((k, v) -> entries.add(quote(k) + ":" + quote(v)));
    return "{" + String.join(",", entries) + "}";
  }

  /** A JSON string literal: the two-character escapes where JSON has one, else \\u00XX. */
  private static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        case '\r' -> sb.append("\\r");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** FNV-1a over the code units, then the length. */
  private static long chars(long h, String s) {
    for (int i = 0; i < s.length(); i++) {
      h = (h ^ s.charAt(i)) * PRIME;
    }
    return (h ^ s.length()) * PRIME;
  }

  /** A string's own digest. */
  private static long text(String s) {
    return mix(chars(OFFSET, s));
  }

  /** A subject's digest: its five strings' digests folded, mixed. */
  private static long subject(Subject s) {
    long h = OFFSET;
    for (String part : List.of(s.apiVersion(), s.kind(), s.namespace(), s.name(), s.uid())) {
      h = fold(h, text(part));
    }
    return mix(h);
  }

  private static long fold(long h, long digest) {
    return (h ^ digest) * PRIME;
  }

  private static long number(long h, long v) {
    return (h ^ mix(v)) * PRIME;
  }

  private static long map(long h, Map<String, String> m) {
    h = number(h, m.size());
    for (var e : m.entrySet()) {
      h = chars(chars(h, e.getKey()), e.getValue());
    }
    return h;
  }
}
