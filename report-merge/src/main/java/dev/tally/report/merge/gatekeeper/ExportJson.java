package dev.tally.report.merge.gatekeeper;

import dev.tally.report.api.InvalidReportException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One line of an export file, as JSON (RFC 8259), read into an {@link ExportLine}: the object's
 * string fields the rule uses and its {@code enforcementActions} list, every other value skipped.
 *
 * <p>A line holds exactly one object and nothing after it (white space aside). The fields used must
 * have their type ({@code null} is taken as left out); a field used twice keeps its last value, as
 * Go's decoder does. A value of a field not used ({@code details}, {@code constraintAnnotations},
 * {@code resourceLabels}, any field a later Gatekeeper adds) is skipped by its brackets and
 * strings, at any depth and without building it: the template and the audited resource decide how
 * deep it is, and no bound of a JSON library's may make a run unreadable. Errors name the field.
 */
final class ExportJson {
  private static final Set<String> STRINGS =
      Set.of(
          "id",
          "eventType",
          "message",
          "group",
          "version",
          "kind",
          "name",
          "enforcementAction",
          "resourceGroup",
          "resourceAPIVersion",
          "resourceKind",
          "resourceNamespace",
          "resourceName");
  private static final String ACTIONS = "enforcementActions";

  private final String text;
  private int at;

  private ExportJson(String text) {
    this.text = text;
  }

  /**
   * {@code line}, read.
   *
   * @throws InvalidReportException naming the field (empty for the line itself) and the reason
   */
  static ExportLine parse(String line) {
    ExportJson json = new ExportJson(line);
    Map<String, String> strings = new HashMap<>();
    List<String> actions = List.of();
    json.space();
    json.expect('{', "", "is not a JSON object");
    json.space();
    if (!json.take('}')) {
      while (true) {
        json.space();
        if (json.peek() != '"') {
          throw json.error("", "expected a field name");
        }
        String field = json.string("");
        json.space();
        json.expect(':', field, "expected ':' after the field name");
        json.space();
        if (STRINGS.contains(field)) {
          strings.put(field, json.nullOr(field) ? "" : json.stringValue(field));
        } else if (field.equals(ACTIONS)) {
          actions = json.nullOr(field) ? List.of() : json.strings(field);
        } else {
          json.skip(field);
        }
        json.space();
        if (json.take('}')) {
          break;
        }
        json.expect(',', field, "expected ',' or '}' after the value");
      }
    }
    json.space();
    if (json.at < json.text.length()) {
      throw json.error("", "has more after the object");
    }
    return new ExportLine(
        strings.getOrDefault("id", ""),
        strings.getOrDefault("eventType", ""),
        strings.getOrDefault("message", ""),
        strings.getOrDefault("group", ""),
        strings.getOrDefault("version", ""),
        strings.getOrDefault("kind", ""),
        strings.getOrDefault("name", ""),
        strings.getOrDefault("enforcementAction", ""),
        actions,
        strings.getOrDefault("resourceGroup", ""),
        strings.getOrDefault("resourceAPIVersion", ""),
        strings.getOrDefault("resourceKind", ""),
        strings.getOrDefault("resourceNamespace", ""),
        strings.getOrDefault("resourceName", ""));
  }

  private char peek() {
    return at < text.length() ? text.charAt(at) : '\0';
  }

  private boolean take(char c) {
    if (at < text.length() && text.charAt(at) == c) {
      at++;
      return true;
    }
    return false;
  }

  private void expect(char c, String field, String reason) {
    if (!take(c)) {
      throw error(field, reason);
    }
  }

  private void space() {
    while (at < text.length()) {
      char c = text.charAt(at);
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
        return;
      }
      at++;
    }
  }

  private boolean nullOr(String field) {
    if (text.startsWith("null", at)) {
      at += 4;
      return true;
    }
    return false;
  }

  private String stringValue(String field) {
    if (peek() != '"') {
      throw error(field, "must be a string");
    }
    return string(field);
  }

  private List<String> strings(String field) {
    expect('[', field, "must be a list of strings");
    List<String> out = new ArrayList<>();
    space();
    if (take(']')) {
      return out;
    }
    while (true) {
      space();
      String element = field + "[" + out.size() + "]";
      out.add(stringValue(element));
      space();
      if (take(']')) {
        return out;
      }
      expect(',', element, "expected ',' or ']' after the value");
    }
  }

  /** A JSON string at {@code at}, unescaped; {@code at} is past its closing quote. */
  private String string(String field) {
    at++; // the opening quote
    StringBuilder out = null;
    int start = at;
    while (true) {
      if (at >= text.length()) {
        throw error(field, "has a string that does not end");
      }
      char c = text.charAt(at);
      if (c == '"') {
        String s = out == null ? text.substring(start, at) : out.append(text, start, at).toString();
        at++;
        return s;
      }
      if (c < 0x20) {
        throw error(field, "has a control character in a string");
      }
      if (c != '\\') {
        at++;
        continue;
      }
      if (out == null) {
        out = new StringBuilder();
      }
      out.append(text, start, at);
      if (at + 1 >= text.length()) {
        throw error(field, "has a string that does not end");
      }
      char e = text.charAt(at + 1);
      at += 2;
      switch (e) {
        case '"', '\\', '/' -> out.append(e);
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          if (at + 4 > text.length()) {
            throw error(field, "has a \\u escape without four hex digits");
          }
          int code = 0;
          for (int i = 0; i < 4; i++) {
            int d = Character.digit(text.charAt(at + i), 16);
            if (d < 0) {
              throw error(field, "has a \\u escape without four hex digits");
            }
            code = code * 16 + d;
          }
          at += 4;
          out.append((char) code);
        }
        default -> throw error(field, "has an unknown escape \\" + e);
      }
      start = at;
    }
  }

  /**
   * Skips one value: a string, a number or literal, or an array or object with everything in it,
   * its brackets matched with a stack of its own (no recursion: any depth).
   */
  private void skip(String field) {
    StringBuilder open = new StringBuilder();
    do {
      space();
      char c = peek();
      if (c == '"') {
        string(field);
      } else if (c == '{' || c == '[') {
        open.append(c);
        at++;
      } else if (c == '}' || c == ']') {
        char expected = c == '}' ? '{' : '[';
        if (open.isEmpty() || open.charAt(open.length() - 1) != expected) {
          throw error(field, "has a '" + c + "' that closes nothing");
        }
        open.setLength(open.length() - 1);
        at++;
      } else if (c == ',' || c == ':') {
        if (open.isEmpty()) {
          throw error(field, "has no value");
        }
        at++;
      } else {
        int start = at;
        while (at < text.length() && "{}[],:\" \t\r\n".indexOf(text.charAt(at)) < 0) {
          at++;
        }
        if (at == start) {
          throw error(field, "has a value that does not end");
        }
      }
    } while (!open.isEmpty());
  }

  private InvalidReportException error(String field, String reason) {
    return new InvalidReportException(field, reason + " (at character " + (at + 1) + ")");
  }
}
