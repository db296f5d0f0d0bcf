package dev.tally.report.files;

import static dev.tally.report.files.FieldPaths.join;

import dev.tally.report.files.ComposeErrors.SyntaxError;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.comments.CommentType;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.scanner.Scanner;
import org.snakeyaml.engine.v2.scanner.ScannerImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;
import org.snakeyaml.engine.v2.tokens.CommentToken;
import org.snakeyaml.engine.v2.tokens.DocumentStartToken;
import org.snakeyaml.engine.v2.tokens.ScalarToken;
import org.snakeyaml.engine.v2.tokens.Token;

/**
 * snakeyaml-engine's tokens of a JSON text, checked against JSON's grammar (RFC 8259) on their way
 * to the parser, with a document start put before each value after the first, so that values may
 * follow one another. Errors name the path being read and say what JSON expected there. {@link
 * TextDocuments} puts this class between the scanner and the parser when a text is JSON.
 */
final class JsonGrammar implements Scanner {
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

  JsonGrammar(Scanner tokens, String text) {
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
        new JsonGrammar(
            new ScannerImpl(
                TextDocuments.SETTINGS, new StreamReader(TextDocuments.SETTINGS, before)),
            before);
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
        throw unexpectedAt(i, line(s), "a character of a string (control characters are escaped)");
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
  private int offset(Optional<Mark> mark) {
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
