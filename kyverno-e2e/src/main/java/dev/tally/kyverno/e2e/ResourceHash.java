package dev.tally.kyverno.e2e;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The value of the label {@code audit.kyverno.io/resource.hash} that Kyverno's background scan puts
 * on an intermediate report: the MD5, in hex, of Go's {@code json.Marshal} of {@code [labels,
 * annotations, object]}, the object without {@code metadata}, {@code status}, {@code scale} and
 * {@code spec.nodeName} (Kyverno v1.19.1, {@code pkg/utils/report}). The object is the resource as
 * the API server serves it as JSON, read into maps and lists (no typed model in between: a typed
 * model may drop or add fields).
 */
final class ResourceHash {
  private ResourceHash() {}

  /**
   * The hash of a resource: {@code labels} and {@code annotations} its metadata's (null when it has
   * none), {@code object} its top-level fields as served (with or without metadata).
   */
  static String of(
      Map<String, String> labels, Map<String, String> annotations, Map<String, Object> object) {
    Map<String, Object> obj = new LinkedHashMap<>(object);
    obj.remove("metadata");
    obj.remove("status");
    obj.remove("scale");
    if (obj.get("spec") instanceof Map<?, ?> spec && spec.containsKey("nodeName")) {
      Map<Object, Object> copy = new LinkedHashMap<>(spec);
      copy.remove("nodeName");
      obj.put("spec", copy);
    }
    List<Object> input = new ArrayList<>();
    input.add(labels);
    input.add(annotations);
    input.add(obj);
    try {
      byte[] md5 =
          MessageDigest.getInstance("MD5").digest(goJson(input).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(md5);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * What Go's {@code encoding/json} Marshal writes for a value read from JSON: maps with their keys
   * sorted, no spaces, and strings escaped as Go escapes them (HTML characters and U+2028/U+2029
   * too).
   */
  static String goJson(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value);
    return out.toString();
  }

  private static void write(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof Map<?, ?> map) {
      List<String> keys = new ArrayList<>();
      map.keySet().forEach(k -> keys.add(String.valueOf(k)));
      // Go sorts a map's keys by their bytes (UTF-8); for UTF-16 strings that is code point order
      keys.sort(ResourceHash::compareCodePoints);
      out.append('{');
      boolean first = true;
      for (String key : keys) {
        if (!first) {
          out.append(',');
        }
        first = false;
        string(out, key);
        out.append(':');
        write(out, map.get(key));
      }
      out.append('}');
    } else if (value instanceof Collection<?> list) {
      out.append('[');
      boolean first = true;
      for (Object item : list) {
        if (!first) {
          out.append(',');
        }
        first = false;
        write(out, item);
      }
      out.append(']');
    } else if (value instanceof String s) {
      string(out, s);
    } else if (value instanceof Boolean b) {
      out.append(b.booleanValue());
    } else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      // Go writes a float64 in the 'f' format below 1e21 (and above 1e-6), shortest round trip
      out.append(BigDecimal.valueOf(d).stripTrailingZeros().toPlainString());
    } else if (value instanceof Number n) {
      out.append(n.toString());
    } else {
      string(out, value.toString());
    }
  }

  private static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '<', '>', '&', '\u2028', '\u2029' ->
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
        default -> {
          if (c < 0x20) {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
