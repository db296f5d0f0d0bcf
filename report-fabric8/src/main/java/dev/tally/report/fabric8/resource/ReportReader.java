package dev.tally.report.fabric8.resource;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportKind;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.NodeEvent;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * Reads the text of published reports for {@link ReportCodec#read(String, String)}: YAML (one or
 * several documents, anchors and aliases resolved, no size limit) or JSON (one or several values).
 * The text is parsed into a tree of maps, lists and strings that remembers the line of every field,
 * so that every error and warning names the document, the line and the field path; then each report
 * object is bound to its resource class and decoded through the model.
 *
 * <p>Scalars are kept as the text they were written as and converted to the field's type when the
 * object is bound, so a property written {@code version: 1.10} reads as {@code "1.10"}, not {@code
 * "1.1"}.
 *
 * <p>The reader links against neither Jackson 2 nor Jackson 3: YAML is parsed with
 * snakeyaml-engine's events, JSON by the small parser below, and binding goes through fabric8's
 * {@link io.fabric8.kubernetes.client.utils.KubernetesSerialization}, so the same class runs on
 * fabric8 7.x (Jackson 2) and 8.x (Jackson 3).
 */
final class ReportReader {
  private static final Logger LOG = LoggerFactory.getLogger(ReportCodec.class);

  /** A kubectl dump of every report in a cluster is easily larger than the 3 MB default. */
  private static final LoadSettings YAML =
      LoadSettings.builder().setCodePointLimit(Integer.MAX_VALUE).build();

  /** Deeper than any report object; a guard for the recursive tree builders. */
  private static final int MAX_DEPTH = 200;

  /** What {@link Values#next} returns after the last value. */
  private static final Object END = new Object();

  private ReportReader() {}

  static List<ReadReport> read(String text, String defaultNamespace) {
    boolean json = looksLikeJson(text);
    Values values = json ? new JsonValues(text) : new YamlValues(text);
    List<ReadReport> out = new ArrayList<>();
    int number = 0;
    while (true) {
      var tree = new Tree();
      Object root;
      try {
        root = values.next(tree);
      } catch (SyntaxError | YamlEngineException e) {
        throw syntaxError(e, number + 1, tree.current, json ? "JSON" : "YAML");
      } catch (ReportReadException e) {
        throw new ReportReadException(number + 1, e.line(), e.field(), e.reason());
      }
      if (root == END) {
        break;
      }
      if (root == null) {
        continue; // an empty document, such as one holding only comments
      }
      number++;
      var doc = new Document(number, root, tree.lines);
      readDocument(doc, defaultNamespace, out);
    }
    return List.copyOf(out);
  }

  private static boolean looksLikeJson(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!Character.isWhitespace(c) && c != '\uFEFF') {
        return c == '{' || c == '[';
      }
    }
    return false;
  }

  /** A map of the tree: the builders below make every map a {@code Map<String, Object>}. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Map<?, ?> node) {
    return (Map<String, Object>) node;
  }

  // ---------------------------------------------------------------- documents

  private static void readDocument(Document doc, String defaultNamespace, List<ReadReport> out) {
    if (!(doc.root instanceof Map<?, ?> rootMap)) {
      throw doc.error("", "is " + describe(doc.root) + ", not a report object or a List of them");
    }
    Map<String, Object> root = map(rootMap);
    String kind = text(doc, root, "", "kind", null);
    if (kind.equals("List") || (kind.endsWith("List") && root.containsKey("items"))) {
      // kubectl get -o yaml writes a v1 List whose items carry their own apiVersion and kind;
      // a typed list (PolicyReportList) may leave them to the list
      String itemApiVersion = kind.equals("List") ? null : text(doc, root, "", "apiVersion", null);
      String itemKind = kind.equals("List") ? null : kind.substring(0, kind.length() - 4);
      Object items = root.get("items");
      if (items == null) {
        return;
      }
      if (!(items instanceof List<?> list)) {
        throw doc.error("items", "is " + describe(items) + ", not a list");
      }
      for (int i = 0; i < list.size(); i++) {
        String path = "items[" + i + "]";
        if (!(list.get(i) instanceof Map<?, ?> item)) {
          throw doc.error(path, "is " + describe(list.get(i)) + ", not a report object");
        }
        out.add(readReport(doc, path, i, map(item), itemApiVersion, itemKind, defaultNamespace));
      }
    } else {
      out.add(readReport(doc, "", -1, root, null, null, defaultNamespace));
    }
  }

  private static ReadReport readReport(
      Document doc,
      String prefix,
      int item,
      Map<String, Object> node,
      @Nullable String listApiVersion,
      @Nullable String listKind,
      String defaultNamespace) {
    List<CodecWarning> warnings = new ArrayList<>();
    String apiVersion = text(doc, node, prefix, "apiVersion", listApiVersion);
    String wireKind = text(doc, node, prefix, "kind", listKind);
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    ReportKind kind = kindOf(doc, prefix, group, apiVersion, wireKind, warnings);
    WireVersion version =
        WireVersion.of(apiVersion)
            .filter(v -> v.has(kind))
            .orElseThrow(
                () ->
                    doc.error(
                        join(prefix, "apiVersion"),
                        "'"
                            + apiVersion
                            + "' is not a version of "
                            + kind.kind()
                            + " that Tally reads; it reads "
                            + group
                            + " "
                            + String.join(", ", WireVersion.versionsOf(group))));
    String what = apiVersion + " " + kind.kind();
    prune(node, version, prefix, what, warnings);
    nameIfAbsent(doc, prefix, item, node, warnings);

    AggregateResource res = bind(doc, prefix, node, kind);
    res.setApiVersion(apiVersion);
    res.setKind(kind.kind());
    if (version.legacyResults()) {
      res.setResults(
          WireResult.fromV1alpha1(res.getResults(), path -> join(prefix, path), warnings));
    }
    String namespace = res.getMetadata().getNamespace();
    if (kind.namespaced() && (namespace == null || namespace.isEmpty())) {
      res.getMetadata().setNamespace(defaultNamespace);
    } else if (!kind.namespaced() && namespace != null && !namespace.isEmpty()) {
      warnings.add(
          new CodecWarning(
              join(prefix, "metadata.namespace"),
              "'" + namespace + "' ignored: " + kind.kind() + " is cluster-scoped"));
    }

    List<CodecWarning> decodeWarnings = new ArrayList<>();
    AggregateReport report;
    try {
      report = AggregateCodec.decode(res, decodeWarnings);
    } catch (InvalidReportException e) {
      throw doc.error(join(prefix, version.wirePath(e.field())), e.reason());
    }
    for (CodecWarning w : decodeWarnings) {
      warnings.add(new CodecWarning(join(prefix, version.wirePath(w.field())), w.message()));
    }
    for (CodecWarning w : warnings) {
      LOG.warn("document {} (line {}): {}", doc.number, doc.lineOf(w.field()), w);
    }
    return new ReadReport(report, apiVersion, warnings, res);
  }

  private static ReportKind kindOf(
      Document doc,
      String prefix,
      String group,
      String apiVersion,
      String kind,
      List<CodecWarning> warnings) {
    for (ReportKind k : ReportKind.values()) {
      if (k.kind().equals(kind) && k.group().equals(group)) {
        return k;
      }
    }
    // some openreports samples say PolicyReport, a kind of the group they were derived from
    if ("openreports.io".equals(group)
        && ("PolicyReport".equals(kind) || "ClusterPolicyReport".equals(kind))) {
      ReportKind k = kind.startsWith("Cluster") ? ReportKind.CLUSTER_REPORT : ReportKind.REPORT;
      warnings.add(
          new CodecWarning(
              join(prefix, "kind"),
              "openreports.io has no kind " + kind + "; read as " + k.kind()));
      return k;
    }
    throw doc.error(
        join(prefix, "kind"),
        "'"
            + apiVersion
            + " "
            + kind
            + "' is not a report kind Tally reads; it reads "
            + WireVersion.known());
  }

  private static String text(
      Document doc,
      Map<String, Object> node,
      String prefix,
      String field,
      @Nullable String inherited) {
    Object value = node.get(field);
    if (value == null) {
      if (inherited != null) {
        return inherited;
      }
      throw doc.error(join(prefix, field), "is required");
    }
    if (!(value instanceof String s) || s.isEmpty()) {
      throw doc.error(
          join(prefix, field), "is " + describe(value) + ", expected a non-empty string");
    }
    return s;
  }

  /** A report without a name (test fixtures and hand-written examples) gets one, with a warning. */
  private static void nameIfAbsent(
      Document doc,
      String prefix,
      int item,
      Map<String, Object> node,
      List<CodecWarning> warnings) {
    Object meta = node.get("metadata");
    if (meta == null) {
      meta = new LinkedHashMap<String, Object>();
      node.put("metadata", meta);
    }
    if (meta instanceof Map<?, ?> metaMap) {
      Map<String, Object> m = map(metaMap);
      Object name = m.get("name");
      if (name == null || "".equals(name)) {
        String generated = "unnamed-" + doc.number + (item < 0 ? "" : "-" + item);
        m.put("name", generated);
        warnings.add(
            new CodecWarning(
                join(prefix, "metadata.name"),
                "is absent; read as '"
                    + generated
                    + "' (an API server holds no object without a name)"));
      }
    }
  }

  // ---------------------------------------------------------------- fields outside the schema

  /**
   * Removes the fields that are not in the schema of the object's version, each with a warning: the
   * API server would prune them, so they are not data of the report.
   */
  private static void prune(
      Map<String, Object> node,
      WireVersion version,
      String prefix,
      String what,
      List<CodecWarning> warnings) {
    var p = new Pruner(what, warnings);
    p.fields(node, prefix, version.topFields(), Map.of());
    p.object(node, prefix, "scope", WireVersion.referenceFields());
    p.selector(node, prefix, "scopeSelector");
    p.object(node, prefix, "summary", WireVersion.summaryFields());
    if (p.object(node, prefix, "configuration", WireVersion.configurationFields())
        instanceof Map<?, ?> configuration) {
      p.object(
          map(configuration), join(prefix, "configuration"), "limits", WireVersion.limitsFields());
    }
    if (node.get("results") instanceof List<?> results) {
      for (int i = 0; i < results.size(); i++) {
        if (results.get(i) instanceof Map<?, ?> resultMap) {
          Map<String, Object> result = map(resultMap);
          String path = join(prefix, "results[" + i + "]");
          p.fields(result, path, version.resultFields(), version.resultRenames());
          p.object(result, path, "timestamp", WireVersion.timestampFields());
          p.selector(result, path, "resourceSelector");
          if (result.get("resources") instanceof List<?> resources) {
            for (int j = 0; j < resources.size(); j++) {
              if (resources.get(j) instanceof Map<?, ?> ref) {
                p.fields(
                    map(ref),
                    path + ".resources[" + j + "]",
                    WireVersion.referenceFields(),
                    Map.of());
              }
            }
          }
        }
      }
    }
  }

  private record Pruner(String what, List<CodecWarning> warnings) {
    void fields(
        Map<String, Object> node, String path, Set<String> known, Map<String, String> renames) {
      for (String name : List.copyOf(node.keySet())) {
        if (!known.contains(name)) {
          node.remove(name);
          String rename = renames.get(name);
          warnings.add(
              new CodecWarning(
                  join(path, name),
                  "is not a field of "
                      + what
                      + (rename == null ? "" : " (which calls it '" + rename + "')")
                      + "; dropped"));
        }
      }
    }

    @Nullable Object object(
        Map<String, Object> parent, String path, String field, Set<String> known) {
      Object child = parent.get(field);
      if (child instanceof Map<?, ?> o) {
        fields(map(o), join(path, field), known, Map.of());
      }
      return child;
    }

    void selector(Map<String, Object> parent, String path, String field) {
      if (object(parent, path, field, WireVersion.selectorFields()) instanceof Map<?, ?> s
          && s.get("matchExpressions") instanceof List<?> expressions) {
        for (int k = 0; k < expressions.size(); k++) {
          if (expressions.get(k) instanceof Map<?, ?> e) {
            fields(
                map(e),
                join(path, field) + ".matchExpressions[" + k + "]",
                WireVersion.requirementFields(),
                Map.of());
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------- binding

  private static AggregateResource bind(
      Document doc, String prefix, Map<String, Object> node, ReportKind kind) {
    try {
      return AggregateCodec.bind(node, kind);
    } catch (IllegalArgumentException e) {
      BindingFailure f = BindingFailure.of(e.getCause());
      if (f == null) {
        throw doc.error(prefix, "cannot be read: " + e.getMessage());
      }
      StringBuilder path = new StringBuilder();
      Object value = node;
      for (Object step : f.path()) {
        if (step instanceof String name) {
          path.append(path.isEmpty() ? "" : ".").append(name);
          value = value instanceof Map<?, ?> m ? m.get(name) : null;
        } else {
          int index = (Integer) step;
          path.append('[').append(index).append(']');
          value = value instanceof List<?> l && index < l.size() ? l.get(index) : null;
        }
      }
      String expected = expected(f.target());
      String reason =
          expected == null || value == null
              ? firstLine(f.message())
              : "is " + describe(value) + ", expected " + expected;
      throw doc.error(join(prefix, path.toString()), reason);
    }
  }

  /**
   * What a binding failure of Jackson says: the path to the value, the type it expected (when the
   * value did not fit it) and the message. fabric8 7.x binds with Jackson 2 ({@code
   * com.fasterxml.jackson}), 8.x with Jackson 3 ({@code tools.jackson}); their exceptions have the
   * same shape under other names, so they are read by name and this class links against neither.
   */
  private record BindingFailure(
      List<Object> path, @Nullable Class<?> target, @Nullable String message) {
    static @Nullable BindingFailure of(@Nullable Throwable t) {
      if (t == null) {
        return null;
      }
      String type = t.getClass().getName();
      if (!type.startsWith("tools.jackson.") && !type.startsWith("com.fasterxml.jackson.")) {
        return null;
      }
      try {
        List<Object> path = new ArrayList<>();
        for (Object ref : (List<?>) call(t, "getPath")) {
          // Jackson 3 calls it the property name, Jackson 2 the field name
          Object name =
              call(
                  ref, method(ref, "getPropertyName") != null ? "getPropertyName" : "getFieldName");
          int index = (Integer) call(ref, "getIndex");
          if (name != null) {
            path.add(name.toString());
          } else if (index >= 0) {
            path.add(index);
          }
        }
        Class<?> target =
            isA(t.getClass(), "MismatchedInputException")
                ? (Class<?>) call(t, "getTargetType")
                : null;
        return new BindingFailure(path, target, (String) call(t, "getOriginalMessage"));
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }

    private static boolean isA(@Nullable Class<?> type, String simpleName) {
      for (Class<?> c = type; c != null; c = c.getSuperclass()) {
        if (c.getSimpleName().equals(simpleName)) {
          return true;
        }
      }
      return false;
    }

    private static @Nullable Method method(Object target, String name) {
      try {
        return target.getClass().getMethod(name);
      } catch (NoSuchMethodException e) {
        return null;
      }
    }

    private static @Nullable Object call(Object target, String name)
        throws ReflectiveOperationException {
      return target.getClass().getMethod(name).invoke(target);
    }
  }

  private static @Nullable String expected(@Nullable Class<?> type) {
    if (type == null) {
      return null;
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == Integer.class || type == int.class) {
      return "an integer in [-2147483648, 2147483647]";
    }
    if (type == Long.class || type == long.class) {
      return "an integer";
    }
    if (type == String.class) {
      return "a string";
    }
    if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) {
      return "a list";
    }
    return "a map";
  }

  private static String describe(@Nullable Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof List<?>) {
      return "a list";
    }
    if (value instanceof Map<?, ?>) {
      return "a map";
    }
    String text = value.toString();
    return "'" + (text.length() > 60 ? text.substring(0, 57) + "..." : text) + "'";
  }

  // ---------------------------------------------------------------- syntax

  private static ReportReadException syntaxError(
      RuntimeException e, int document, String near, String format) {
    int line = 0;
    String reason = e.getMessage();
    if (e instanceof MarkedYamlEngineException m) {
      reason = (m.getContext() == null ? "" : m.getContext() + ": ") + m.getProblem();
      line = m.getProblemMark().map(mark -> mark.getLine() + 1).orElse(0);
    } else if (e instanceof SyntaxError s) {
      line = s.line;
    }
    return new ReportReadException(
        document, line, near, "not valid " + format + ": " + firstLine(reason));
  }

  /** Text that is not valid JSON, or YAML that the tree cannot hold; at a line. */
  private static final class SyntaxError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int line;

    SyntaxError(String message, int line) {
      super(message, null, false, false);
      this.line = line;
    }
  }

  private static String firstLine(@Nullable String message) {
    if (message == null) {
      return "unreadable";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).strip();
  }

  private static String join(String prefix, String path) {
    return prefix.isEmpty() ? path : path.isEmpty() ? prefix : prefix + "." + path;
  }

  /** The path one level up: {@code results[2].timestamp} for {@code results[2].timestamp.nanos}. */
  private static String parent(String path) {
    int cut = path.endsWith("]") ? path.lastIndexOf('[') : path.lastIndexOf('.');
    return cut < 0 ? "" : path.substring(0, cut);
  }

  // ---------------------------------------------------------------- the tree

  /** One root value of the text, with the line of every field path in it. */
  private record Document(int number, Object root, Map<String, Integer> lines) {
    int lineOf(String path) {
      String p = path;
      while (true) {
        Integer line = lines.get(p);
        if (line != null) {
          return line;
        }
        if (p.isEmpty()) {
          return 0;
        }
        p = parent(p);
      }
    }

    ReportReadException error(String field, String reason) {
      return new ReportReadException(number, lineOf(field), field, reason);
    }
  }

  /**
   * The tree of one document as it is built: the line of every path, and the path being read (what
   * a syntax error names).
   */
  private static final class Tree {
    final Map<String, Integer> lines = new HashMap<>();
    String current = "";

    /** Enters the value at {@code path}, first seen at {@code line}. */
    void at(String path, int line, int depth) {
      if (depth > MAX_DEPTH) {
        throw new ReportReadException(
            0, line, path, "is nested more than " + MAX_DEPTH + " levels deep");
      }
      current = path;
      lines.putIfAbsent(path, line);
    }

    /** Enters the field {@code name} of the map at {@code path}, whose name is at {@code line}. */
    String field(Map<String, Object> map, String path, String name, int line) {
      String child = path.isEmpty() ? name : path + "." + name;
      lines.put(child, line);
      current = child;
      // a key given twice is refused, as by every YAML reader Kubernetes uses
      if (map.containsKey(name)) {
        throw new SyntaxError("key \"" + name + "\" is given twice", line);
      }
      return child;
    }
  }

  /** The root values of a text, one by one. */
  private interface Values {
    /**
     * The next root value, built into {@code tree}: a map, a list, a string or null (an empty
     * document); {@link #END} after the last.
     */
    @Nullable Object next(Tree tree);
  }

  /**
   * YAML documents, from snakeyaml-engine's events. Scalars are kept as text; a plain {@code null},
   * {@code Null}, {@code NULL}, {@code ~} or nothing is null (the YAML 1.2 core schema). An alias
   * reads as a copy of what its anchor names.
   */
  private static final class YamlValues implements Values {
    private final Iterator<Event> events;
    private final Map<String, Object> anchors = new HashMap<>();

    YamlValues(String text) {
      events = new Parse(YAML).parseString(text).iterator();
    }

    @Override
    public @Nullable Object next(Tree tree) {
      while (events.hasNext()) {
        Event e = events.next();
        if (e.getEventId() == Event.ID.StreamEnd) {
          return END;
        }
        if (e.getEventId() == Event.ID.DocumentStart) {
          anchors.clear(); // an anchor names a value of its own document
          return value(tree, events.next(), "", 0);
        }
      }
      return END;
    }

    private @Nullable Object value(Tree tree, Event e, String path, int depth) {
      tree.at(path, line(e), depth);
      Object value;
      switch (e.getEventId()) {
        case MappingStart -> {
          Map<String, Object> map = new LinkedHashMap<>();
          for (Event k = events.next(); k.getEventId() != Event.ID.MappingEnd; k = events.next()) {
            if (!(k instanceof ScalarEvent key)) {
              throw new SyntaxError("a key is not a plain value", line(k));
            }
            String child = tree.field(map, path, key.getValue(), line(k));
            map.put(key.getValue(), value(tree, events.next(), child, depth + 1));
          }
          value = map;
        }
        case SequenceStart -> {
          List<Object> list = new ArrayList<>();
          for (Event i = events.next(); i.getEventId() != Event.ID.SequenceEnd; i = events.next()) {
            list.add(value(tree, i, path + "[" + list.size() + "]", depth + 1));
          }
          value = list;
        }
        case Scalar -> value = isNull((ScalarEvent) e) ? null : ((ScalarEvent) e).getValue();
        case Alias -> {
          String anchor = ((AliasEvent) e).getAlias().getValue();
          if (!anchors.containsKey(anchor)) {
            throw new SyntaxError("no anchor &" + anchor + " before the alias *" + anchor, line(e));
          }
          return copy(anchors.get(anchor));
        }
        default -> throw new SyntaxError("unexpected " + e.getEventId(), line(e));
      }
      if (e instanceof NodeEvent n && n.getAnchor().isPresent()) {
        anchors.put(n.getAnchor().get().getValue(), value);
      }
      return value;
    }

    private static boolean isNull(ScalarEvent s) {
      if (s.getTag().isPresent()) {
        return s.getTag().get().equals("tag:yaml.org,2002:null");
      }
      return s.isPlain() && Set.of("", "~", "null", "Null", "NULL").contains(s.getValue());
    }

    private static @Nullable Object copy(@Nullable Object value) {
      if (value instanceof Map<?, ?> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put((String) k, copy(v)));
        return out;
      }
      if (value instanceof List<?> l) {
        List<Object> out = new ArrayList<>(l.size());
        l.forEach(v -> out.add(copy(v)));
        return out;
      }
      return value;
    }

    private static int line(Event e) {
      return e.getStartMark().map(m -> m.getLine() + 1).orElse(0);
    }
  }

  /**
   * JSON values (RFC 8259), one after another. Numbers, {@code true} and {@code false} are kept as
   * the text they were written as.
   */
  private static final class JsonValues implements Values {
    private final String text;
    private int pos;
    private int line = 1;

    JsonValues(String text) {
      this.text = text;
      if (text.startsWith("\uFEFF")) {
        pos = 1;
      }
    }

    @Override
    public @Nullable Object next(Tree tree) {
      space();
      return pos >= text.length() ? END : value(tree, "", 0);
    }

    private @Nullable Object value(Tree tree, String path, int depth) {
      tree.at(path, line, depth);
      if (pos >= text.length()) {
        throw new SyntaxError("Unexpected end of input: expected a value", line);
      }
      char c = text.charAt(pos);
      switch (c) {
        case '{' -> {
          pos++;
          Map<String, Object> map = new LinkedHashMap<>();
          space();
          if (take('}')) {
            return map;
          }
          do {
            space();
            if (pos >= text.length() || text.charAt(pos) != '"') {
              throw unexpected("a field name in double quotes");
            }
            int keyLine = line;
            String name = string();
            String child = tree.field(map, path, name, keyLine);
            space();
            if (!take(':')) {
              throw unexpected("':'");
            }
            space();
            map.put(name, value(tree, child, depth + 1));
            space();
          } while (take(','));
          if (!take('}')) {
            throw unexpected("',' or '}'");
          }
          return map;
        }
        case '[' -> {
          pos++;
          List<Object> list = new ArrayList<>();
          space();
          if (take(']')) {
            return list;
          }
          do {
            space();
            list.add(value(tree, path + "[" + list.size() + "]", depth + 1));
            space();
          } while (take(','));
          if (!take(']')) {
            throw unexpected("',' or ']'");
          }
          return list;
        }
        case '"' -> {
          return string();
        }
        case 't' -> {
          return literal("true");
        }
        case 'f' -> {
          return literal("false");
        }
        case 'n' -> {
          literal("null");
          return null;
        }
        default -> {
          if (c == '-' || (c >= '0' && c <= '9')) {
            return number();
          }
          throw unexpected("a value");
        }
      }
    }

    private void space() {
      while (pos < text.length()) {
        char c = text.charAt(pos);
        if (c == '\n') {
          line++;
        } else if (c != ' ' && c != '\t' && c != '\r') {
          return;
        }
        pos++;
      }
    }

    private boolean take(char c) {
      if (pos < text.length() && text.charAt(pos) == c) {
        pos++;
        return true;
      }
      return false;
    }

    private String literal(String word) {
      if (!text.startsWith(word, pos)) {
        throw unexpected("a value");
      }
      pos += word.length();
      return word;
    }

    private String number() {
      int start = pos;
      take('-');
      if (!take('0')) {
        if (!digits()) {
          throw unexpected("a digit");
        }
      }
      if (take('.') && !digits()) {
        throw unexpected("a digit");
      }
      if (take('e') || take('E')) {
        if (!take('+')) {
          take('-');
        }
        if (!digits()) {
          throw unexpected("a digit");
        }
      }
      return text.substring(start, pos);
    }

    private boolean digits() {
      int start = pos;
      while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
        pos++;
      }
      return pos > start;
    }

    private String string() {
      pos++; // the opening quote
      StringBuilder out = new StringBuilder();
      while (true) {
        if (pos >= text.length()) {
          throw new SyntaxError("Unexpected end of input in a string", line);
        }
        char c = text.charAt(pos++);
        if (c == '"') {
          return out.toString();
        }
        if (c < 0x20) {
          pos--;
          throw unexpected("a character of a string (control characters are escaped)");
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (pos >= text.length()) {
          throw new SyntaxError("Unexpected end of input in a string", line);
        }
        char e = text.charAt(pos++);
        switch (e) {
          case '"', '\\', '/' -> out.append(e);
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            if (pos + 4 > text.length()) {
              throw new SyntaxError("Unexpected end of input in a \\u escape", line);
            }
            try {
              out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
            } catch (NumberFormatException x) {
              throw new SyntaxError(
                  "'\\u" + text.substring(pos, pos + 4) + "' is not a \\u escape", line);
            }
            pos += 4;
          }
          default -> {
            pos--;
            throw unexpected("an escape (one of \" \\ / b f n r t u)");
          }
        }
      }
    }

    private SyntaxError unexpected(String expected) {
      if (pos >= text.length()) {
        return new SyntaxError("Unexpected end of input: expected " + expected, line);
      }
      char c = text.charAt(pos);
      String shown = c < 0x20 ? String.format("U+%04X", (int) c) : "'" + c + "'";
      return new SyntaxError("Unexpected character " + shown + ": expected " + expected, line);
    }
  }
}
