package dev.tally.report.merge;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.LabelSelector;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.WireNames;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
 */
public final class EncodedSize {
  /** The longest partition name suffix: '.' and one hex digit per 4 bits of the deepest path. */
  static final int MAX_SUFFIX = 1 + PartitionTrie.MAX_DEPTH / 4;

  private EncodedSize() {}

  /** The bytes of one result's JSON object. */
  public static int of(Result r) {
    return of(r, ValueFacts.DIRECT);
  }

  /** {@link #of(Result)} from the strings' and subjects' sizes in {@code facts}. */
  static int of(Result r, ValueFacts facts) {
    Fields f = new Fields();
    f.sized("source", facts.jsonSize(r.source()));
    f.sized("policy", facts.jsonSize(r.policy()));
    f.sized("rule", facts.jsonSize(r.rule()));
    f.raw("result", quoted(r.status().wireName()));
    r.severity().ifPresent(s -> f.raw("severity", quoted(s.wireName())));
    f.sized("category", facts.jsonSize(r.category()));
    f.sized("message", facts.jsonSize(r.message()));
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
    f.raw("resources", r.resources().isEmpty() ? 0 : subjects(r.resources(), facts));
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
   * The largest envelope any partition of a group can have. All of it is fixed for the group but
   * what differs between its partitions: the name's suffix (at most {@link #MAX_SUFFIX} chars), the
   * content hash (always 16 hex digits) and the summary, whose counts are at most {@code maxCount}
   * each.
   *
   * @param baseName the group's name, that of its first partition
   * @param scope the scope of the group's partitions, which is also their owner
   */
  static int envelopeBound(
      ReportKind kind,
      String namespace,
      String baseName,
      Map<String, String> labels,
      Optional<Subject> scope,
      Optional<ReportConfiguration> configuration,
      int maxCount) {
    String longestName = baseName + "." + "f".repeat(MAX_SUFFIX - 1);
    Summary most = new Summary(maxCount, maxCount, maxCount, maxCount, maxCount);
    return envelope(
        new AggregateReport(
            new ReportRef(kind, namespace, longestName),
            labels,
            scope,
            scope,
            configuration,
            List.of(),
            most,
            Fingerprint.hex(0)));
  }

  /**
   * The subject of {@code namespace} whose JSON is the largest the model allows: every other field
   * at its longest, of characters that JSON escapes to 6 bytes.
   */
  static Subject widestSubject(String namespace) {
    String widest = "\u0001".repeat(Subject.MAX_FIELD);
    return new Subject(widest, widest, namespace, widest, "\u0001".repeat(Subject.MAX_UID));
  }

  /** The namespace whose JSON is the largest the model allows. */
  static String widestNamespace() {
    return "\u0001".repeat(Subject.MAX_NAMESPACE);
  }

  /**
   * Which field of a result takes the most bytes of its JSON: the one to name when the result is
   * too large.
   */
  static String largestField(Result r) {
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
    int resources = r.resources().isEmpty() ? 0 : subjects(r.resources(), ValueFacts.DIRECT);
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

  private static int subjects(List<Subject> subjects, ValueFacts facts) {
    int n = 1;
    for (int i = 0, len = subjects.size(); i < len; i++) {
      n += facts.jsonSize(subjects.get(i)) + 1;
    }
    return n;
  }

  private static int subject(Subject s) {
    return subject(s, ValueFacts.DIRECT);
  }

  /** The bytes of a subject's JSON object, from its strings' sizes in {@code facts}. */
  static int subject(Subject s, ValueFacts facts) {
    Fields f = new Fields();
    f.sized("apiVersion", facts.jsonSize(s.apiVersion()));
    f.sized("kind", facts.jsonSize(s.kind()));
    f.sized("namespace", facts.jsonSize(s.namespace()));
    f.sized("name", facts.jsonSize(s.name()));
    f.sized("uid", facts.jsonSize(s.uid()));
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
