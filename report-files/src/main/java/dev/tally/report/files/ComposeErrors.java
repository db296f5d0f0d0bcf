package dev.tally.report.files;

import static dev.tally.report.files.FieldPaths.join;

import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.parser.Parser;

/**
 * Where, and why, composing a text failed: the path of the value being read when snakeyaml-engine
 * raises an error, and its error told as a report reader's reason. {@link TextDocuments} composes
 * the text through a {@link TrackingParser} and words the errors it catches with {@link #reason}.
 */
final class ComposeErrors {
  private ComposeErrors() {}

  /** Text that is not valid JSON, or YAML that the tree cannot hold; at a line and a path. */
  static final class SyntaxError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int line;
    final String path;

    SyntaxError(String message, int line, String path) {
      super(message, null, false, false);
      this.line = line;
      this.path = path;
    }
  }

  static int line(YamlEngineException e) {
    return e instanceof MarkedYamlEngineException m
        ? m.getProblemMark().map(mark -> mark.getLine() + 1).orElse(0)
        : 0;
  }

  static String reason(YamlEngineException e, boolean json) {
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
  static final class TrackingParser implements Parser {
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
}
