package dev.tally.report.api;

import java.util.List;
import java.util.Map;

/**
 * The size in bytes of the compact UTF-8 JSON of results and reports, computed from the model
 * without encoding anything: exactly the bytes Tally's adapter writes. Empty strings, empty maps
 * and absent values are left out (but an ownerReference writes its four fields, empty or not),
 * strings are escaped as JSON requires (quote and backslash take 2 bytes, control characters 2 or,
 * as a backslash, 'u' and four hex digits, 6), everything else is raw UTF-8 (1 to 3 bytes a char, 4
 * a surrogate pair; the model holds no lone surrogate).
 *
 * <p>For a whole report it counts the metadata Tally sets (name, namespace, labels, the
 * content-hash annotation, one ownerReference) but not what the API server adds ({@code uid},
 * {@code resourceVersion}, {@code managedFields}...): the default {@code maxBytes} leaves half a
 * MiB under etcd's limit for that.
 *
 * <p>The one implementation of these sizes: a {@link Result} measures its JSON object with these
 * steps while it is built ({@link Result#encodedSize()}, field by field in the order {@code
 * ResultFacts} states), and report-merge sizes envelopes and partitions with them.
 */
public final class EncodedSize {
  private EncodedSize() {}

  /** The bytes of one result's JSON object: {@link Result#encodedSize()}, measured when built. */
  public static int of(Result r) {
    return r.encodedSize();
  }

  /** The bytes of a whole report's JSON as Tally writes it. */
  public static long of(AggregateReport report) {
    long results = 2; // []
    for (int i = 0; i < report.results().size(); i++) {
      results += of(report.results().get(i)) + (i == 0 ? 0 : 1);
    }
    return envelope(report) + results;
  }

  /**
   * The bytes of everything of a report but its {@code results} array: the report's encoded size is
   * this, plus 2 for {@code []}, plus each result's size and a comma between two.
   */
  public static int envelope(AggregateReport report) {
    Fields f = new Fields();
    f.string("apiVersion", report.ref().kind().apiVersion());
    f.string("kind", report.ref().kind().kind());
    Fields meta = new Fields();
    meta.string("name", report.ref().name());
    meta.string("namespace", report.ref().namespace());
    meta.raw("labels", report.labels().isEmpty() ? 0 : map(report.labels()));
    if (!report.contentHash().isEmpty()) {
      meta.raw("annotations", map(Map.of(WireNames.CONTENT_HASH_ANNOTATION, report.contentHash())));
    }
    report
        .owner()
        .ifPresent(
            o -> {
              // an ownerReference has four required fields: written even when empty
              Fields ref = new Fields();
              ref.raw("apiVersion", string(o.apiVersion()));
              ref.raw("kind", string(o.kind()));
              ref.raw("controller", 4);
              ref.raw("name", string(o.name()));
              ref.raw("uid", string(o.uid()));
              meta.raw("ownerReferences", 2 + ref.close());
            });
    f.raw("metadata", meta.close());
    report.scope().ifPresent(s -> f.raw("scope", subject(s)));
    report.configuration().ifPresent(c -> f.raw("configuration", configuration(c)));
    Fields summary = new Fields();
    summary.raw("pass", digits(report.summary().pass()));
    summary.raw("fail", digits(report.summary().fail()));
    summary.raw("warn", digits(report.summary().warn()));
    summary.raw("error", digits(report.summary().error()));
    summary.raw("skip", digits(report.summary().skip()));
    f.raw("summary", summary.close());
    f.raw("results", 1); // the array's own bytes are counted by the caller; 1 keeps the field
    return f.close() - 1;
  }

  /**
   * Which field of a result takes the most bytes of its JSON: the one to name when the result is
   * too large.
   */
  public static String largestField(Result r) {
    String field = "policy";
    int most = string(r.policy());
    String[] names = {"source", "rule", "category", "message"};
    String[] values = {r.source(), r.rule(), r.category(), r.message()};
    for (int i = 0; i < names.length; i++) {
      int n = string(values[i]);
      if (n > most) {
        field = names[i];
        most = n;
      }
    }
    int properties = r.properties().isEmpty() ? 0 : map(r.properties());
    if (properties > most) {
      field = "properties";
      most = properties;
    }
    int resources = r.resources().isEmpty() ? 0 : subjects(r.resources());
    if (resources > most) {
      field = "resources";
      most = resources;
    }
    if (r.resourceSelector().isPresent() && selector(r.resourceSelector().get()) > most) {
      field = "resourceSelector";
    }
    return field;
  }

  private static int configuration(ReportConfiguration c) {
    Fields limits = new Fields();
    limits.raw("maxResults", digits(c.maxResults()));
    if (!c.statusFilter().isEmpty()) {
      int n = 1;
      for (var s : c.statusFilter()) {
        n += quoted(s.wireName()) + 1;
      }
      limits.raw("statusFilter", n);
    }
    Fields f = new Fields();
    f.raw("limits", limits.close());
    return f.close();
  }

  /** The bytes of a JSON array of subjects. */
  static int subjects(List<Subject> subjects) {
    int n = 1;
    for (int i = 0, len = subjects.size(); i < len; i++) {
      n += subject(subjects.get(i)) + 1;
    }
    return n;
  }

  /** The bytes of a subject's JSON object. */
  public static int subject(Subject s) {
    Fields f = new Fields();
    f.string("apiVersion", s.apiVersion());
    f.string("kind", s.kind());
    f.string("namespace", s.namespace());
    f.string("name", s.name());
    f.string("uid", s.uid());
    return f.close();
  }

  /** The bytes of a label selector's JSON object. */
  static int selector(LabelSelector s) {
    Fields f = new Fields();
    f.raw("matchLabels", s.matchLabels().isEmpty() ? 0 : map(s.matchLabels()));
    if (!s.matchExpressions().isEmpty()) {
      int n = 1;
      for (var req : s.matchExpressions()) {
        Fields r = new Fields();
        r.string("key", req.key());
        r.string("operator", req.operator());
        if (!req.values().isEmpty()) {
          int v = 1;
          for (String value : req.values()) {
            v += string(value) + 1;
          }
          r.raw("values", v);
        }
        n += r.close() + 1;
      }
      f.raw("matchExpressions", n);
    }
    return f.close();
  }

  /** The bytes of a JSON object of strings. */
  static int map(Map<String, String> m) {
    int n = 1;
    for (var e : m.entrySet()) {
      n += string(e.getKey()) + 1 + string(e.getValue()) + 1;
    }
    return n;
  }

  /** The bytes of a string literal of ASCII characters that need no escape. */
  static int quoted(String ascii) {
    return ascii.length() + 2;
  }

  /** The length of {@code Long.toString(v)}, without building the string (it runs per result). */
  public static int digits(long v) {
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

  /** The bytes of a JSON string literal: quotes, escapes and UTF-8. */
  public static int string(String s) {
    int n = 2;
    for (int i = 0, len = s.length(); i < len; i++) {
      n += charBytes(s.charAt(i));
    }
    return n;
  }

  /**
   * The bytes one UTF-16 code unit takes in a JSON string literal: an escape for a quote, a
   * backslash or a control character (2 bytes, or 6 as a backslash, 'u' and four hex digits), else
   * its UTF-8 (1 to 3 bytes; each half of a surrogate pair 2, the pair's 4 bytes).
   */
  static int charBytes(char c) {
    if (c < 0x80) {
      if (c >= 0x20) {
        return c == '"' || c == '\\' ? 2 : 1;
      }
      return (c == '\n' || c == '\t' || c == '\r' || c == '\b' || c == '\f') ? 2 : 6;
    }
    if (c < 0x800) {
      return 2;
    }
    return Character.isSurrogate(c) ? 2 : 3;
  }

  /** Accumulates the bytes of a JSON object's fields: {@code {"a":1,"b":2}}. */
  static final class Fields {
    private int bytes = 1;
    private int count;

    void string(String name, String value) {
      if (!value.isEmpty()) {
        raw(name, EncodedSize.string(value));
      }
    }

    /**
     * A string field whose literal takes {@code literalBytes}; an empty one ({@code ""}) is left
     * out.
     */
    void sized(String name, int literalBytes) {
      if (literalBytes > 2) {
        raw(name, literalBytes);
      }
    }

    /** A field whose value takes {@code valueBytes}; 0 leaves the field out. */
    void raw(String name, int valueBytes) {
      if (valueBytes == 0) {
        return;
      }
      bytes += (count++ == 0 ? 0 : 1) + name.length() + 3 + valueBytes;
    }

    int close() {
      return bytes + 1;
    }
  }
}
