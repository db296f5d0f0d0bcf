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
        String field = json.string("", true);
        json.space();
        json.expect(':', field, "expected ':' after the field name");
        json.space();
        if (STRINGS.contains(field)) {
          if (!json.isNull()) {
            strings.put(field, json.stringValue(field));
          }
        } else if (field.equals(ACTIONS)) {
          if (!json.isNull()) {
            actions = json.strings(field);
          }
        } else if (foldsToUsed(field)) {
          // Go's decoder would take it for the field it folds to: refused, not read otherwise
          throw json.error(field, "differs only in case from a field read");
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

  private static boolean foldsToUsed(String field) {
    if (field.equalsIgnoreCase(ACTIONS)) {
      return true;
    }
    for (String used : STRINGS) {
      if (field.equalsIgnoreCase(used)) {
        return true;
      }
    }
    return false;
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

  /** Whether a {@code null} is next (taken as the field left out, as Go's decoder does). */
  private boolean isNull() {
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
    return string(field, true);
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
      if (peek() != '"') {
        throw error(field + "[" + out.size() + "]", "must be a string");
      }
      out.add(string(field, true));
      space();
      if (take(']')) {
        return out;
      }
      if (!take(',')) {
        throw error(field + "[" + (out.size() - 1) + "]", "expected ',' or ']' after the value");
      }
    }
  }

  /**
   * A JSON string at {@code at}, unescaped as Go's decoder does (an escaped surrogate that is not
   * half of a pair becomes U+FFFD); {@code at} is past its closing quote. Built only when {@code
   * keep}; empty otherwise.
   */
  private String string(String field, boolean keep) {
    at++; // the opening quote
    StringBuilder out = null;
    int start = at;
    while (true) {
      if (at >= text.length()) {
        throw error(field, "has a string that does not end");
      }
      char c = text.charAt(at);
      if (c == '"') {
        String s;
        if (!keep) {
          s = "";
        } else if (out == null) {
          s = text.substring(start, at);
        } else {
          s = out.append(text, start, at).toString();
        }
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
      if (keep) {
        out.append(text, start, at);
      }
      int backslash = at;
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
          char unit = hex4(field, backslash);
          if (Character.isHighSurrogate(unit)
              && text.startsWith("\\u", at)
              && at + 6 <= text.length()) {
            int save = at;
            at += 2;
            char low = hex4(field, save);
            if (Character.isLowSurrogate(low)) {
              out.append(unit).append(low);
            } else {
              out.append('\uFFFD');
              at = save; // the second escape is read on its own
            }
          } else {
            out.append(Character.isSurrogate(unit) ? '\uFFFD' : unit);
          }
        }
        default -> {
          at = backslash;
          throw error(
              field,
              "has an unknown escape \\"
                  + new String(Character.toChars(text.codePointAt(backslash + 1))));
        }
      }
      if (!keep) {
        out.setLength(0);
      }
      start = at;
    }
  }

  /** The four hex digits at {@code at} (ASCII only, as JSON says), as a UTF-16 unit. */
  private char hex4(String field, int escape) {
    if (at + 4 > text.length()) {
      at = escape;
      throw error(field, "has a \\u escape without four hex digits");
    }
    int code = 0;
    for (int i = 0; i < 4; i++) {
      char h = text.charAt(at + i);
      int d =
          h >= '0' && h <= '9'
              ? h - '0'
              : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (d < 0) {
        at = escape;
        throw error(field, "has a \\u escape without four hex digits");
      }
      code = code * 16 + d;
    }
    at += 4;
    return (char) code;
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
        string(field, false);
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
