package dev.tally.report.files;

import dev.tally.report.files.ComposeErrors.SyntaxError;
import dev.tally.report.files.ComposeErrors.TrackingParser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.Scanner;
import org.snakeyaml.engine.v2.scanner.ScannerImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * The documents of a YAML or JSON text, each a tree of maps, lists and strings that remembers the
 * line of every field path. This class only parses the text; {@link ReportReader} reads reports out
 * of the documents.
 *
 * <p>snakeyaml-engine composes the text into nodes, JSON as YAML 1.2 (several documents, anchors
 * and aliases resolved, no size limit); this class walks the nodes, taking each node's line from
 * its start mark, and refuses a key given twice. Scalars are kept as the text they were written as
 * (so {@code version: 1.10} reads as {@code "1.10"}, not {@code "1.1"}); a plain {@code null},
 * {@code Null}, {@code NULL}, {@code ~} or nothing is null (the YAML 1.2 core schema).
 *
 * <p>What YAML accepts but JSON does not (a trailing comma, {@code 01}, a value left out, a
 * single-quoted string, an escape JSON lacks) is refused in a JSON text, which is one whose first
 * character is <code>{</code> or {@code [}: {@link JsonGrammar} checks snakeyaml-engine's tokens
 * against JSON's grammar and lets several JSON values follow one another, each a document. {@link
 * ComposeErrors} follows the path being read, so that an error raised while composing names it.
 */
final class TextDocuments {
  /** A kubectl dump of every report in a cluster is easily larger than the 3 MB default. */
  static final LoadSettings SETTINGS =
      LoadSettings.builder()
          .setCodePointLimit(Integer.MAX_VALUE)
          .setSchema(new CoreSchema())
          .build();

  /** The same, with comments as tokens: a JSON text may have blank lines but no comment. */
  private static final LoadSettings JSON_SETTINGS =
      LoadSettings.builder()
          .setCodePointLimit(Integer.MAX_VALUE)
          .setSchema(new CoreSchema())
          .setParseComments(true)
          .build();

  /** Deeper than any report object; a guard for the recursive walk (and recursive aliases). */
  private static final int MAX_DEPTH = 200;

  private TextDocuments() {}

  /** One root value of the text, with the line of every field path in it. */
  record Document(int number, Object root, Map<String, Integer> lines) {
    /** The line of a path, or of the nearest path above it that has one; 0 if none has. */
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
        p = FieldPaths.parent(p);
      }
    }

    ReportReadException error(String field, String reason) {
      return new ReportReadException(number, lineOf(field), field, reason);
    }
  }

  /**
   * Hands each non-empty document of the text to {@code each}, in order, numbered from 1; a
   * document is parsed only after the one before it was handled.
   *
   * @throws ReportReadException naming the document, the line and the path being read if the text
   *     is not valid YAML (or JSON)
   */
  static void forEach(String text, Consumer<Document> each) {
    boolean json = looksLikeJson(text);
    String format = json ? "JSON" : "YAML";
    LoadSettings settings = json ? JSON_SETTINGS : SETTINGS;
    Scanner tokens = new ScannerImpl(settings, new StreamReader(settings, text));
    JsonGrammar jsonTokens = json ? new JsonGrammar(tokens, text) : null;
    var parser = new TrackingParser(new ParserImpl(SETTINGS, json ? jsonTokens : tokens));
    var composer = new Composer(SETTINGS, parser);
    int number = 0;
    while (true) {
      Node node;
      try {
        if (!composer.hasNext()) {
          return;
        }
        node = composer.next();
      } catch (SyntaxError e) {
        throw new ReportReadException(
            number + 1, e.line, e.path, "not valid " + format + ": " + e.getMessage());
      } catch (YamlEngineException e) {
        String near = json ? JsonGrammar.pathAt(text, e) : parser.current;
        throw new ReportReadException(
            number + 1,
            ComposeErrors.line(e),
            near,
            "not valid " + format + ": " + ComposeErrors.reason(e, json));
      }
      if (node instanceof ScalarNode s && s.getTag().equals(Tag.NULL)) {
        continue; // an empty document, such as one holding only comments
      }
      number++;
      Map<String, Integer> lines = new HashMap<>();
      Object root;
      try {
        root = value(node, "", 0, lines);
      } catch (SyntaxError e) {
        throw new ReportReadException(
            number, e.line, e.path, "not valid " + format + ": " + e.getMessage());
      } catch (ReportReadException e) {
        throw new ReportReadException(number, e.line(), e.field(), e.reason());
      }
      each.accept(new Document(number, root, lines));
    }
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

  // ---------------------------------------------------------------- the tree

  /** A node as maps, lists, strings and nulls, with the line of every path put in {@code lines}. */
  private static @Nullable Object value(
      Node node, String path, int depth, Map<String, Integer> lines) {
    int line = line(node);
    if (depth > MAX_DEPTH) {
      throw new ReportReadException(
          0, line, path, "is nested more than " + MAX_DEPTH + " levels deep");
    }
    if (node.isRecursive()) {
      throw new SyntaxError("an alias refers to the value that holds it", line, path);
    }
    lines.putIfAbsent(path, line);
    if (node instanceof MappingNode m) {
      Map<String, Object> map = new LinkedHashMap<>();
      for (NodeTuple t : m.getValue()) {
        if (!(t.getKeyNode() instanceof ScalarNode key)) {
          throw new SyntaxError("a key is not a plain value", line(t.getKeyNode()), path);
        }
        String name = key.getValue();
        String child = FieldPaths.join(path, name);
        lines.put(child, line(key));
        // a key given twice is refused, as by every YAML reader Kubernetes uses
        if (map.containsKey(name)) {
          throw new SyntaxError("key \"" + name + "\" is given twice", line(key), child);
        }
        map.put(name, value(t.getValueNode(), child, depth + 1, lines));
      }
      return map;
    }
    if (node instanceof SequenceNode s) {
      List<Object> list = new ArrayList<>(s.getValue().size());
      for (Node item : s.getValue()) {
        list.add(value(item, path + "[" + list.size() + "]", depth + 1, lines));
      }
      return list;
    }
    ScalarNode scalar = (ScalarNode) node;
    return scalar.getTag().equals(Tag.NULL) ? null : scalar.getValue();
  }

  private static int line(Node node) {
    return node.getStartMark().map(m -> m.getLine() + 1).orElse(0);
  }
}
