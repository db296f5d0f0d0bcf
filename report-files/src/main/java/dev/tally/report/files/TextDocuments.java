package dev.tally.report.files;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.comments.CommentType;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.parser.Parser;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.Scanner;
import org.snakeyaml.engine.v2.scanner.ScannerImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;
import org.snakeyaml.engine.v2.schema.CoreSchema;
import org.snakeyaml.engine.v2.tokens.CommentToken;
import org.snakeyaml.engine.v2.tokens.DocumentStartToken;
import org.snakeyaml.engine.v2.tokens.ScalarToken;
import org.snakeyaml.engine.v2.tokens.Token;

/**
 * The documents of a YAML or JSON text, each a tree of maps, lists and strings that remembers the
 * line of every field path. Split off {@link ReportReader} along the line between parsing the text
 * and reading reports out of it.
 *
 * <p>snakeyaml-engine composes the text into nodes, JSON as YAML 1.2 (several documents, anchors
 * and aliases resolved, no size limit); this class walks the nodes, taking each node's line from
 * its start mark, and refuses a key given twice. Scalars are kept as the text they were written as
 * (so {@code version: 1.10} reads as {@code "1.10"}, not {@code "1.1"}); a plain {@code null},
 * {@code Null}, {@code NULL}, {@code ~} or nothing is null (the YAML 1.2 core schema).
 *
 * <p>What YAML accepts but JSON does not (a trailing comma, {@code 01}, a value left out, a
 * single-quoted string, an escape JSON lacks) is refused in a JSON text, which is one whose first
 * character is <code>{</code> or {@code [}: {@link JsonTokens} checks snakeyaml-engine's tokens
 * against JSON's grammar and lets several JSON values follow one another, each a document.
 */
final class TextDocuments {
  /** A kubectl dump of every report in a cluster is easily larger than the 3 MB default. */
  private static final LoadSettings SETTINGS =
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
        p = parent(p);
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
    JsonTokens jsonTokens = json ? new JsonTokens(tokens, text) : null;
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
        String near = json ? JsonTokens.pathAt(text, e) : parser.current;
        throw new ReportReadException(
            number + 1, line(e), near, "not valid " + format + ": " + reason(e, json));
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
        String child = join(path, name);
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

  static String join(String prefix, String path) {
    return prefix.isEmpty() ? path : path.isEmpty() ? prefix : prefix + "." + path;
  }

  /** The path one level up: {@code results[2].timestamp} for {@code results[2].timestamp.nanos}. */
  static String parent(String path) {
    int cut = path.endsWith("]") ? path.lastIndexOf('[') : path.lastIndexOf('.');
    return cut < 0 ? "" : path.substring(0, cut);
  }

  // ---------------------------------------------------------------- syntax errors

  /** Text that is not valid JSON, or YAML that the tree cannot hold; at a line and a path. */
  private static final class SyntaxError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int line;
    final String path;

    SyntaxError(String message, int line, String path) {
      super(message, null, false, false);
      this.line = line;
      this.path = path;
    }
  }

  private static int line(YamlEngineException e) {
    return e instanceof MarkedYamlEngineException m
        ? m.getProblemMark().map(mark -> mark.getLine() + 1).orElse(0)
        : 0;
  }

  private static String reason(YamlEngineException e, boolean json) {
    if (!(e instanceof MarkedYamlEngineException m)) {
      String message = firstLine(e.getMessage());
      return message.startsWith("Non scalar key") ? "a key is not a plain value" : message;
    }
    String problem = firstLine(m.getProblem());
    String context = m.getContext() == null ? "" : firstLine(m.getContext());
    if (problem.startsWith("found undefined alias ")) {
      String anchor = problem.substring("found undefined alias ".length());
      return "no anchor &" + anchor + " before the alias *" + anchor;
    }
    if (json && context.contains("quoted scalar") && problem.contains("end of stream")) {
      return "Unexpected end of input in a string";
    }
    String escape = "found unknown escape character ";
    if (json && problem.startsWith(escape) && problem.length() > escape.length()) {
      return "Unexpected character '"
          + problem.charAt(escape.length())
          + "': expected an escape (one of \" \\ / b f n r t u)";
    }
    return context.isEmpty() ? problem : context + ": " + problem;
  }

  private static String firstLine(@Nullable String message) {
    if (message == null) {
      return "unreadable";
    }
    String m = message.strip();
    int nl = m.indexOf('\n');
    return (nl < 0 ? m : m.substring(0, nl)).strip();
  }

  /**
   * The parser's events, passed on to the composer, following the path of the value being read: a
   * syntax error names the path it was found in.
   */
  private static final class TrackingParser implements Parser {
    private final Parser events;
    private final ArrayDeque<Frame> open = new ArrayDeque<>();
    String current = "";

    /** A map or list being read: its path, and the key (or the index of the next item) in it. */
    private static final class Frame {
      final String path;
      final boolean map;
      boolean atKey = true;
      String key = "";
      int index;

      Frame(String path, boolean map) {
        this.path = path;
        this.map = map;
      }
    }

    TrackingParser(Parser events) {
      this.events = events;
    }

    @Override
    public boolean checkEvent(Event.ID choice) {
      return events.checkEvent(choice);
    }

    @Override
    public Event peekEvent() {
      return events.peekEvent();
    }

    @Override
    public boolean hasNext() {
      return events.hasNext();
    }

    @Override
    public Event next() {
      Event e = events.next();
      switch (e.getEventId()) {
        case DocumentStart -> {
          open.clear();
          current = "";
        }
        case MappingEnd, SequenceEnd -> open.poll();
        case Scalar, Alias, MappingStart, SequenceStart -> {
          Frame f = open.peek();
          String path;
          if (f != null && f.map && f.atKey) {
            f.atKey = false;
            if (e instanceof ScalarEvent key) {
              f.key = join(f.path, key.getValue());
              current = f.key;
              return e;
            }
            path = f.path; // a key that is not a plain value: refused when the tree is built
          } else {
            path = f == null ? "" : f.map ? f.key : f.path + "[" + f.index++ + "]";
            if (f != null && f.map) {
              f.atKey = true;
            }
          }
          current = path;
          if (e.getEventId() == Event.ID.MappingStart) {
            open.push(new Frame(path, true));
          } else if (e.getEventId() == Event.ID.SequenceStart) {
            open.push(new Frame(path, false));
          }
        }
        default -> {}
      }
      return e;
    }
  }

  // ---------------------------------------------------------------- JSON

  /**
   * snakeyaml-engine's tokens of a JSON text, checked against JSON's grammar (RFC 8259) on their
   * way to the parser, with a document start put before each value after the first, so that values
   * may follow one another. Errors name the path being read and say what JSON expected there.
   */
  static final class JsonTokens implements Scanner {
    private static final Set<Character> ESCAPES =
        Set.of('"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u');

    private final Scanner tokens;
    private final String text;
    private final ArrayDeque<Token> ready = new ArrayDeque<>();
    private final ArrayDeque<Frame> open = new ArrayDeque<>();
    private boolean started;
    private String current = "";
    // a mark's index counts code points; the text's, chars: the last pair converted
    private int markIndex;
    private int charIndex;

    private enum Expect {
      FIRST,
      NEXT,
      KEY,
      COLON,
      VALUE,
      AFTER
    }

    /** An object or array being read. */
    private static final class Frame {
      final String path;
      final boolean object;
      Expect expect = Expect.FIRST;
      String key = "";
      int index;

      Frame(String path, boolean object) {
        this.path = path;
        this.object = object;
      }

      String after() {
        return object ? "',' or '}'" : "',' or ']'";
      }
    }

    JsonTokens(Scanner tokens, String text) {
      this.tokens = tokens;
      this.text = text;
    }

    /** The path being read where a syntax error of the scanner starts: the text up to it, read. */
    static String pathAt(String text, YamlEngineException e) {
      if (!(e instanceof MarkedYamlEngineException m)) {
        return "";
      }
      int at = m.getContextMark().or(m::getProblemMark).map(Mark::getIndex).orElse(0);
      String before;
      try {
        before =
            text.substring(
                0, text.offsetByCodePoints(0, Math.min(at, text.codePointCount(0, text.length()))));
      } catch (IndexOutOfBoundsException x) {
        return "";
      }
      var prefix =
          new JsonTokens(new ScannerImpl(SETTINGS, new StreamReader(SETTINGS, before)), before);
      try {
        while (prefix.hasNext()) {
          prefix.next();
        }
      } catch (RuntimeException x) {
        // the text up to the error may end anywhere; the path reached is what counts
      }
      return prefix.current;
    }

    @Override
    public boolean checkToken(Token.ID... choices) {
      fill();
      if (ready.isEmpty()) {
        return false;
      }
      if (choices.length == 0) {
        return true;
      }
      Token.ID id = ready.peek().getTokenId();
      for (Token.ID choice : choices) {
        if (choice == id) {
          return true;
        }
      }
      return false;
    }

    @Override
    public Token peekToken() {
      fill();
      return ready.peek();
    }

    @Override
    public Token next() {
      fill();
      return ready.poll();
    }

    @Override
    public boolean hasNext() {
      fill();
      return !ready.isEmpty();
    }

    @Override
    public void resetDocumentIndex() {
      tokens.resetDocumentIndex();
    }

    private void fill() {
      while (ready.isEmpty() && tokens.hasNext()) {
        accept(tokens.next());
      }
    }

    private void accept(Token t) {
      Frame f = open.peek();
      switch (t.getTokenId()) {
        case StreamStart -> ready.add(t);
        case StreamEnd -> {
          if (f != null) {
            throw unexpected(t, f.expect == Expect.AFTER ? f.after() : expected(f));
          }
          ready.add(t);
        }
        case Comment -> {
          if (((CommentToken) t).getCommentType() != CommentType.BLANK_LINE) {
            throw unexpected(t, f == null ? "a value" : expected(f));
          }
        }
        default -> {
          if (f == null) {
            if (!isValue(t)) {
              throw unexpected(t, "a value");
            }
            if (started) {
              ready.add(new DocumentStartToken(t.getStartMark(), t.getStartMark()));
            }
            started = true;
            value(t, "", "a value");
            return;
          }
          switch (f.expect) {
            case FIRST, NEXT -> {
              if (f.object && t.getTokenId() == Token.ID.Key) {
                f.expect = Expect.KEY;
                ready.add(t);
              } else if (f.expect == Expect.FIRST && isEnd(t, f)) {
                close(t);
              } else if (f.object
                  && t instanceof ScalarToken s
                  && s.getStyle() == ScalarStyle.DOUBLE_QUOTED) {
                throw unexpectedAfter(s, "':'");
              } else if (!f.object && isValue(t)) {
                f.expect = Expect.AFTER;
                value(t, f.path + "[" + f.index++ + "]", f.after());
              } else {
                throw unexpected(t, expected(f));
              }
            }
            case KEY -> {
              if (!(t instanceof ScalarToken s) || s.getStyle() != ScalarStyle.DOUBLE_QUOTED) {
                throw unexpected(t, "a field name in double quotes");
              }
              string(s);
              f.key = join(f.path, s.getValue());
              current = f.key;
              f.expect = Expect.COLON;
              ready.add(t);
            }
            case COLON -> {
              if (t.getTokenId() != Token.ID.Value) {
                throw unexpected(t, "':'");
              }
              f.expect = Expect.VALUE;
              ready.add(t);
            }
            case VALUE -> {
              if (!isValue(t)) {
                throw unexpected(t, "a value");
              }
              f.expect = Expect.AFTER;
              value(t, f.key, f.after());
            }
            case AFTER -> {
              if (t.getTokenId() == Token.ID.FlowEntry) {
                f.expect = Expect.NEXT;
                ready.add(t);
              } else if (isEnd(t, f)) {
                close(t);
              } else {
                throw unexpected(t, f.after());
              }
            }
          }
        }
      }
    }

    private static String expected(Frame f) {
      return switch (f.expect) {
        case FIRST, NEXT, KEY -> f.object ? "a field name in double quotes" : "a value";
        case COLON -> "':'";
        case VALUE -> "a value";
        case AFTER -> f.after();
      };
    }

    private static boolean isValue(Token t) {
      return switch (t.getTokenId()) {
        case FlowMappingStart, FlowSequenceStart, Scalar -> true;
        default -> false;
      };
    }

    private static boolean isEnd(Token t, Frame f) {
      return t.getTokenId() == (f.object ? Token.ID.FlowMappingEnd : Token.ID.FlowSequenceEnd);
    }

    private void close(Token t) {
      open.pop();
      ready.add(t);
    }

    /** A value at {@code path}; {@code follow} is what may come after a scalar. */
    private void value(Token t, String path, String follow) {
      current = path;
      if (t.getTokenId() == Token.ID.FlowMappingStart) {
        open.push(new Frame(path, true));
      } else if (t.getTokenId() == Token.ID.FlowSequenceStart) {
        open.push(new Frame(path, false));
      } else {
        ScalarToken s = (ScalarToken) t;
        if (s.getStyle() == ScalarStyle.DOUBLE_QUOTED) {
          string(s);
        } else if (s.getStyle() == ScalarStyle.PLAIN) {
          literal(s, follow);
        } else {
          throw unexpected(t, "a value");
        }
      }
      ready.add(t);
    }

    /** {@code true}, {@code false}, {@code null} or a number, and nothing after it. */
    private void literal(ScalarToken s, String follow) {
      String v = s.getValue();
      for (String word : List.of("true", "false", "null")) {
        if (v.startsWith(word)) {
          if (v.length() > word.length()) {
            throw unexpectedIn(s, word.length(), follow);
          }
          return;
        }
      }
      int i = 0;
      if (i < v.length() && v.charAt(i) == '-') {
        i++;
      } else if (v.isEmpty() || !Character.isDigit(v.charAt(0))) {
        throw unexpectedIn(s, 0, "a value");
      }
      if (i < v.length() && v.charAt(i) == '0') {
        i++;
      } else if (digits(v, i) == i) {
        throw unexpectedIn(s, i, "a digit");
      } else {
        i = digits(v, i);
      }
      if (i < v.length() && v.charAt(i) == '.') {
        if (digits(v, i + 1) == i + 1) {
          throw unexpectedIn(s, i + 1, "a digit");
        }
        i = digits(v, i + 1);
      }
      if (i < v.length() && (v.charAt(i) == 'e' || v.charAt(i) == 'E')) {
        i++;
        if (i < v.length() && (v.charAt(i) == '+' || v.charAt(i) == '-')) {
          i++;
        }
        if (digits(v, i) == i) {
          throw unexpectedIn(s, i, "a digit");
        }
        i = digits(v, i);
      }
      if (i < v.length()) {
        while (i < v.length() - 1 && Character.isWhitespace(v.charAt(i))) {
          i++;
        }
        throw unexpectedIn(s, i, follow);
      }
    }

    private static int digits(String v, int from) {
      int i = from;
      while (i < v.length() && v.charAt(i) >= '0' && v.charAt(i) <= '9') {
        i++;
      }
      return i;
    }

    /** A string as written: no raw control characters, no escapes JSON does not have. */
    private void string(ScalarToken s) {
      int from = offset(s.getStartMark()) + 1;
      int to = Math.max(from, offset(s.getEndMark()) - 1);
      for (int i = from; i < to; i++) {
        char c = text.charAt(i);
        if (c < 0x20) {
          throw unexpectedAt(
              i, line(s), "a character of a string (control characters are escaped)");
        }
        if (c == '\\' && i + 1 < to) {
          i++;
          if (!ESCAPES.contains(text.charAt(i))) {
            throw unexpectedAt(i, line(s), "an escape (one of \" \\ / b f n r t u)");
          }
        }
      }
    }

    /** The char offset in the text of a mark, whose index counts code points. */
    private int offset(java.util.Optional<Mark> mark) {
      int index = mark.map(Mark::getIndex).orElse(markIndex);
      if (index < markIndex) {
        markIndex = 0;
        charIndex = 0;
      }
      while (markIndex < index && charIndex < text.length()) {
        charIndex += Character.charCount(text.codePointAt(charIndex));
        markIndex++;
      }
      return charIndex;
    }

    private static int line(Token t) {
      return t.getStartMark().map(m -> m.getLine() + 1).orElse(0);
    }

    private SyntaxError unexpected(Token t, String expected) {
      return unexpectedAt(offset(t.getStartMark()), line(t), expected);
    }

    private SyntaxError unexpectedIn(ScalarToken s, int at, String expected) {
      return unexpectedAt(offset(s.getStartMark()) + at, line(s), expected);
    }

    private SyntaxError unexpectedAfter(ScalarToken s, String expected) {
      int at = offset(s.getEndMark());
      while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
        at++;
      }
      return unexpectedAt(at, line(s), expected);
    }

    private SyntaxError unexpectedAt(int at, int line, String expected) {
      if (at >= text.length()) {
        return new SyntaxError("Unexpected end of input: expected " + expected, line, current);
      }
      char c = text.charAt(at);
      String shown = c < 0x20 ? String.format("U+%04X", (int) c) : "'" + c + "'";
      return new SyntaxError(
          "Unexpected character " + shown + ": expected " + expected, line, current);
    }
  }
}
