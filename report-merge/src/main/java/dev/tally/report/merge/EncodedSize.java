package dev.tally.report.merge;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.LabelSelector;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import java.util.List;
import java.util.Map;

/**
 * The size in bytes of the compact UTF-8 JSON of results and reports, computed from the model
 * without encoding anything. It counts the JSON Tally's adapter writes: empty strings, empty maps
 * and absent values are left out, strings escaped as JSON requires (quote, backslash, control
 * characters), non-ASCII written as raw UTF-8.
 *
 * <p>For a whole report it counts the metadata Tally sets (name, namespace, labels, the
 * content-hash annotation, one ownerReference) but not what the API server adds ({@code uid},
 * {@code resourceVersion}, {@code managedFields}...): the default {@code maxBytes} leaves half a
 * MiB under etcd's limit for that.
 */
public final class EncodedSize {
  /**
   * Bytes set aside in every partition for the envelope: metadata, scope, summary, configuration.
   */
  static final int ENVELOPE_RESERVE = 4096;

  private EncodedSize() {}

  /** The bytes of one result's JSON object. */
  public static int of(Result r) {
    Fields f = new Fields();
    f.string("source", r.source());
    f.string("policy", r.policy());
    f.string("rule", r.rule());
    f.raw("result", quoted(r.status().wireName()));
    r.severity().ifPresent(s -> f.raw("severity", quoted(s.wireName())));
    f.string("category", r.category());
    f.string("message", r.message());
    r.scored().ifPresent(b -> f.raw("scored", b ? 4 : 5));
    f.raw("properties", r.properties().isEmpty() ? 0 : map(r.properties()));
    r.timestamp()
        .ifPresent(
            t -> {
              Fields ts = new Fields();
              ts.raw("seconds", digits(t.seconds()));
              ts.raw("nanos", digits(t.nanos()));
              f.raw("timestamp", ts.close());
            });
    f.raw("resources", r.resources().isEmpty() ? 0 : subjects(r.resources()));
    r.resourceSelector().ifPresent(s -> f.raw("resourceSelector", selector(s)));
    return f.close();
  }

  /** The bytes of a whole report's JSON as Tally writes it. */
  public static long of(AggregateReport report) {
    long results = 2; // []
    for (int i = 0; i < report.results().size(); i++) {
      results += of(report.results().get(i)) + (i == 0 ? 0 : 1);
    }
    return envelope(report) + results;
  }

  /** Everything of a report but its results array. */
  static int envelope(AggregateReport report) {
    Fields f = new Fields();
    f.string("apiVersion", report.ref().kind().apiVersion());
    f.string("kind", report.ref().kind().kind());
    Fields meta = new Fields();
    meta.string("name", report.ref().name());
    meta.string("namespace", report.ref().namespace());
    meta.raw("labels", report.labels().isEmpty() ? 0 : map(report.labels()));
    if (!report.contentHash().isEmpty()) {
      meta.raw("annotations", map(Map.of(ContentHash.ANNOTATION, report.contentHash())));
    }
    report
        .owner()
        .ifPresent(
            o -> {
              Fields ref = new Fields();
              ref.string("apiVersion", o.apiVersion());
              ref.string("kind", o.kind());
              ref.string("name", o.name());
              ref.string("uid", o.uid());
              ref.raw("controller", 4);
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

  private static int subjects(List<Subject> subjects) {
    int n = 1;
    for (Subject s : subjects) {
      n += subject(s) + 1;
    }
    return n;
  }

  private static int subject(Subject s) {
    Fields f = new Fields();
    f.string("apiVersion", s.apiVersion());
    f.string("kind", s.kind());
    f.string("namespace", s.namespace());
    f.string("name", s.name());
    f.string("uid", s.uid());
    return f.close();
  }

  private static int selector(LabelSelector s) {
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

  private static int map(Map<String, String> m) {
    int n = 1;
    for (var e : m.entrySet()) {
      n += string(e.getKey()) + 1 + string(e.getValue()) + 1;
    }
    return n;
  }

  private static int quoted(String ascii) {
    return ascii.length() + 2;
  }

  /** The length of {@code Long.toString(v)}, without building the string (it runs per result). */
  static int digits(long v) {
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
  static int string(String s) {
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
        n += 2; // a pair is 4 bytes of UTF-8
      } else {
        n += 3;
      }
    }
    return n;
  }

  /** Accumulates the bytes of a JSON object's fields: {@code {"a":1,"b":2}}. */
  private static final class Fields {
    private int bytes = 1;
    private int count;

    void string(String name, String value) {
      if (!value.isEmpty()) {
        raw(name, EncodedSize.string(value));
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
