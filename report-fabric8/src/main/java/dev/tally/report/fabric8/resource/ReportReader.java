package dev.tally.report.fabric8.resource;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLAnchorReplayingFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLSchema;

/**
 * Reads the text of published reports for {@link ReportCodec#read(String, String)}: YAML (one or
 * several documents, anchors and aliases resolved, no size limit) or JSON (one or several values).
 * The text is parsed into a tree that remembers the line of every field, so that every error and
 * warning names the document, the line and the field path; then each report object is bound to its
 * resource class and decoded through the model.
 *
 * <p>Scalars are kept as the text they were written as and converted to the field's type when the
 * object is bound, so a property written {@code version: 1.10} reads as {@code "1.10"}, not {@code
 * "1.1"}.
 */
final class ReportReader {
  private static final Logger LOG = LoggerFactory.getLogger(ReportCodec.class);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper YAML =
      new YAMLMapper(
          YAMLAnchorReplayingFactory.builder()
              // a kubectl dump of every report in a cluster is easily larger than the 3 MB default
              .loadSettings(LoadSettings.builder().setCodePointLimit(Integer.MAX_VALUE).build())
              .yamlSchema(YAMLSchema.CORE)
              .build());
  private static final ObjectMapper JSON = new JsonMapper();

  /** Deeper than any report object; a guard for the recursive tree builder. */
  private static final int MAX_DEPTH = 200;

  private ReportReader() {}

  static List<ReadReport> read(String text, String defaultNamespace) {
    boolean json = looksLikeJson(text);
    List<ReadReport> out = new ArrayList<>();
    int number = 0;
    try (JsonParser p = (json ? JSON : YAML).createParser(text)) {
      while (true) {
        var tree = new TreeBuilder();
        JsonNode root;
        try {
          if (p.nextToken() == null) {
            break;
          }
          root = tree.value(p, "", 0);
        } catch (JacksonException | YamlEngineException e) {
          throw syntaxError(e, number + 1, near(p, tree.current), json ? "JSON" : "YAML");
        } catch (ReportReadException e) {
          throw new ReportReadException(number + 1, e.line(), e.field(), e.reason());
        }
        if (root.isNull()) {
          continue; // an empty document, such as one holding only comments
        }
        number++;
        var doc = new Document(number, root, tree.lines);
        readDocument(doc, defaultNamespace, out);
      }
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

  // ---------------------------------------------------------------- documents

  private static void readDocument(Document doc, String defaultNamespace, List<ReadReport> out) {
    if (!(doc.root instanceof ObjectNode root)) {
      throw doc.error("", "is " + describe(doc.root) + ", not a report object or a List of them");
    }
    String kind = text(doc, root, "", "kind", null);
    if (kind.equals("List") || (kind.endsWith("List") && root.has("items"))) {
      // kubectl get -o yaml writes a v1 List whose items carry their own apiVersion and kind;
      // a typed list (PolicyReportList) may leave them to the list
      String itemApiVersion = kind.equals("List") ? null : text(doc, root, "", "apiVersion", null);
      String itemKind = kind.equals("List") ? null : kind.substring(0, kind.length() - 4);
      JsonNode items = root.get("items");
      if (items == null || items.isNull()) {
        return;
      }
      if (!(items instanceof ArrayNode list)) {
        throw doc.error("items", "is " + describe(items) + ", not a list");
      }
      for (int i = 0; i < list.size(); i++) {
        String path = "items[" + i + "]";
        if (!(list.get(i) instanceof ObjectNode item)) {
          throw doc.error(path, "is " + describe(list.get(i)) + ", not a report object");
        }
        out.add(readReport(doc, path, i, item, itemApiVersion, itemKind, defaultNamespace));
      }
    } else {
      out.add(readReport(doc, "", -1, root, null, null, defaultNamespace));
    }
  }

  private static ReadReport readReport(
      Document doc,
      String prefix,
      int item,
      ObjectNode node,
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
          res.getResults().stream().map(w -> w == null ? null : w.fromV1alpha1()).toList());
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
      Document doc, ObjectNode node, String prefix, String field, @Nullable String inherited) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      if (inherited != null) {
        return inherited;
      }
      throw doc.error(join(prefix, field), "is required");
    }
    if (!value.isString() || value.asString().isEmpty()) {
      throw doc.error(
          join(prefix, field), "is " + describe(value) + ", expected a non-empty string");
    }
    return value.asString();
  }

  /** A report without a name (test fixtures and hand-written examples) gets one, with a warning. */
  private static void nameIfAbsent(
      Document doc, String prefix, int item, ObjectNode node, List<CodecWarning> warnings) {
    JsonNode meta = node.get("metadata");
    if (meta == null || meta.isNull()) {
      meta = NODES.objectNode();
      node.set("metadata", meta);
    }
    if (meta instanceof ObjectNode m) {
      JsonNode name = m.get("name");
      if (name == null || name.isNull() || (name.isString() && name.asString().isEmpty())) {
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
      ObjectNode node,
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
        instanceof ObjectNode configuration) {
      p.object(configuration, join(prefix, "configuration"), "limits", WireVersion.limitsFields());
    }
    if (node.get("results") instanceof ArrayNode results) {
      for (int i = 0; i < results.size(); i++) {
        if (results.get(i) instanceof ObjectNode result) {
          String path = join(prefix, "results[" + i + "]");
          p.fields(result, path, version.resultFields(), version.resultRenames());
          p.object(result, path, "timestamp", WireVersion.timestampFields());
          p.selector(result, path, "resourceSelector");
          if (result.get("resources") instanceof ArrayNode resources) {
            for (int j = 0; j < resources.size(); j++) {
              if (resources.get(j) instanceof ObjectNode ref) {
                p.fields(
                    ref, path + ".resources[" + j + "]", WireVersion.referenceFields(), Map.of());
              }
            }
          }
        }
      }
    }
  }

  private record Pruner(String what, List<CodecWarning> warnings) {
    void fields(ObjectNode node, String path, Set<String> known, Map<String, String> renames) {
      for (String name : List.copyOf(node.propertyNames())) {
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

    @Nullable JsonNode object(ObjectNode parent, String path, String field, Set<String> known) {
      JsonNode child = parent.get(field);
      if (child instanceof ObjectNode o) {
        fields(o, join(path, field), known, Map.of());
      }
      return child;
    }

    void selector(ObjectNode parent, String path, String field) {
      if (object(parent, path, field, WireVersion.selectorFields()) instanceof ObjectNode s
          && s.get("matchExpressions") instanceof ArrayNode expressions) {
        for (int k = 0; k < expressions.size(); k++) {
          if (expressions.get(k) instanceof ObjectNode e) {
            fields(
                e,
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
      Document doc, String prefix, ObjectNode node, ReportKind kind) {
    try {
      return AggregateCodec.bind(node, kind);
    } catch (IllegalArgumentException e) {
      if (!(e.getCause() instanceof JacksonException j)) {
        throw doc.error(prefix, "cannot be read: " + e.getMessage());
      }
      StringBuilder path = new StringBuilder();
      JsonNode value = node;
      for (JacksonException.Reference ref : j.getPath()) {
        if (ref.getPropertyName() != null) {
          path.append(path.isEmpty() ? "" : ".").append(ref.getPropertyName());
          value = value == null ? null : value.get(ref.getPropertyName());
        } else if (ref.getIndex() >= 0) {
          path.append('[').append(ref.getIndex()).append(']');
          value = value == null ? null : value.get(ref.getIndex());
        }
      }
      String expected =
          j instanceof MismatchedInputException m ? expected(m.getTargetType()) : null;
      String reason =
          expected == null || value == null
              ? firstLine(j.getOriginalMessage())
              : "is " + describe(value) + ", expected " + expected;
      throw doc.error(join(prefix, path.toString()), reason);
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

  private static String describe(JsonNode value) {
    if (value.isNull()) {
      return "null";
    }
    if (value.isArray()) {
      return "a list";
    }
    if (value.isObject()) {
      return "a map";
    }
    String text = value.asString();
    return "'" + (text.length() > 60 ? text.substring(0, 57) + "..." : text) + "'";
  }

  // ---------------------------------------------------------------- syntax

  private static ReportReadException syntaxError(
      RuntimeException e, int document, String near, String format) {
    int line = 0;
    String reason = e.getMessage();
    Throwable cause = e instanceof YamlEngineException ? e : e.getCause();
    if (cause instanceof MarkedYamlEngineException m) {
      reason = (m.getContext() == null ? "" : m.getContext() + ": ") + m.getProblem();
      line = m.getProblemMark().map(mark -> mark.getLine() + 1).orElse(0);
    } else if (e instanceof JacksonException j) {
      reason = j.getOriginalMessage();
      line = j.getLocation() == null ? 0 : Math.max(0, j.getLocation().getLineNr());
    }
    return new ReportReadException(
        document, line, near, "not valid " + format + ": " + firstLine(reason));
  }

  /**
   * The path the parser was at when it failed, from its own context: it may have read past the last
   * value the tree holds (a JSON parser reads a value's first character with its name).
   */
  private static String near(JsonParser p, String fallback) {
    try {
      List<String> segments = new ArrayList<>();
      for (TokenStreamContext c = p.streamReadContext();
          c != null && !c.inRoot();
          c = c.getParent()) {
        if (c.inArray()) {
          segments.add(0, "[" + Math.max(0, c.getCurrentIndex()) + "]");
        } else if (c.currentName() != null) {
          segments.add(0, "." + c.currentName());
        }
      }
      String path = String.join("", segments);
      return path.startsWith(".") ? path.substring(1) : path;
    } catch (RuntimeException e) {
      return fallback;
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
  private record Document(int number, JsonNode root, Map<String, Integer> lines) {
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

  /** Builds the tree of one document from the parser, remembering the line of every path. */
  private static final class TreeBuilder {
    final Map<String, Integer> lines = new HashMap<>();
    String current = "";

    JsonNode value(JsonParser p, String path, int depth) {
      if (depth > MAX_DEPTH) {
        throw new ReportReadException(
            0, line(p), path, "is nested more than " + MAX_DEPTH + " levels deep");
      }
      current = path;
      lines.putIfAbsent(path, line(p));
      JsonToken token = p.currentToken();
      if (token == JsonToken.START_OBJECT) {
        ObjectNode node = NODES.objectNode();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
          String name = p.currentName();
          String child = path.isEmpty() ? name : path + "." + name;
          lines.put(child, line(p));
          current = child;
          p.nextToken();
          // a key given twice is refused by the parser, as by every YAML reader Kubernetes uses
          node.set(name, value(p, child, depth + 1));
        }
        return node;
      }
      if (token == JsonToken.START_ARRAY) {
        ArrayNode node = NODES.arrayNode();
        int i = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
          node.add(value(p, path + "[" + i++ + "]", depth + 1));
        }
        return node;
      }
      if (token == JsonToken.VALUE_NULL) {
        return NODES.nullNode();
      }
      // numbers and booleans too: converted when bound, so strings keep what was written
      return NODES.stringNode(p.getString());
    }

    private static int line(JsonParser p) {
      return Math.max(0, p.currentTokenLocation().getLineNr());
    }
  }
}
