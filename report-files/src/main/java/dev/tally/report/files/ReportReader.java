package dev.tally.report.files;

import static dev.tally.report.files.FieldPaths.join;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportKind;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.files.TextDocuments.Document;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the text of published reports for {@link ReportFiles#read(String, String)}: {@link
 * TextDocuments} parses it into trees that remember the line of every field, so that every error
 * and warning names the document, the line and the field path; then each report object in a tree is
 * checked against its version's schema, bound to its resource class and decoded through the model.
 */
final class ReportReader {
  private static final Logger LOG = LoggerFactory.getLogger(ReportFiles.class);

  private ReportReader() {}

  static List<ReadReport> read(String text, String defaultNamespace) {
    List<ReadReport> out = new ArrayList<>();
    TextDocuments.forEach(text, doc -> readDocument(doc, defaultNamespace, out));
    return List.copyOf(out);
  }

  /** A map of the tree: the builders below make every map a {@code Map<String, Object>}. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Map<?, ?> node) {
    return (Map<String, Object>) node;
  }

  // ---------------------------------------------------------------- documents

  private static void readDocument(Document doc, String defaultNamespace, List<ReadReport> out) {
    if (!(doc.root() instanceof Map<?, ?> rootMap)) {
      throw doc.error("", "is " + describe(doc.root()) + ", not a report object or a List of them");
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
    UnaryOperator<String> wirePath = UnaryOperator.identity();
    if (version.legacyResults()) {
      ReadReportCodec.V1alpha1Results legacy =
          ReadReportCodec.fromV1alpha1(res.getResults(), path -> join(prefix, path), warnings);
      res.setResults(legacy.results());
      wirePath = legacy::wirePath;
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

    AggregateReport report;
    try {
      report = ReadReportCodec.decode(res, wirePath, path -> join(prefix, path), warnings);
    } catch (InvalidReportException e) {
      throw doc.error(e.field(), e.reason());
    }
    for (CodecWarning w : warnings) {
      LOG.warn("document {} (line {}): {}", doc.number(), doc.lineOf(w.field()), w);
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
        String generated = "unnamed-" + doc.number() + (item < 0 ? "" : "-" + item);
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
      return Binding.bind(node, kind);
    } catch (IllegalArgumentException e) {
      Binding.Failure f = Binding.Failure.of(e.getCause());
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

  private static String firstLine(@Nullable String message) {
    if (message == null) {
      return "unreadable";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).strip();
  }
}
