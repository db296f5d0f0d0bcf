package dev.tally.report.api;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** Field checks shared by the model's constructors. Each failure names the field. */
final class Checks {
  /** Longest identifier (source, policy, rule, category, producer, names): a DNS subdomain. */
  static final int MAX_IDENTIFIER = 253;

  /** Longest free-text message. Kubernetes objects have room, etcd requests do not. */
  static final int MAX_MESSAGE = 16 * 1024;

  /** Most entries in a properties or label map. */
  static final int MAX_MAP_ENTRIES = 64;

  /** Longest property value. */
  static final int MAX_PROPERTY_VALUE = 4 * 1024;

  private Checks() {}

  static String required(String field, String value, int maxLength) {
    return optional(field, present(field, value), maxLength);
  }

  /** {@code value}, which must not be blank; for strings a constructor already checked. */
  static String present(String field, String value) {
    if (value.isBlank()) {
      throw new InvalidReportException(field, "is required");
    }
    return value;
  }

  /**
   * {@code value}, checked: at most {@code maxLength} chars and no lone surrogate. A high surrogate
   * not followed by a low one, or a low one not preceded by a high one, is no character at all: it
   * has no UTF-8 encoding, so a report holding it could not be written as it is (encoders replace
   * it or fail). One pass over the chars; most are far below the surrogate range.
   */
  static String optional(String field, String value, int maxLength) {
    int length = value.length();
    if (length > maxLength) {
      throw new InvalidReportException(
          field, "is " + length + " characters long, at most " + maxLength + " allowed");
    }
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
        if (Character.isHighSurrogate(c)
            && i + 1 < length
            && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++; // a valid pair: one character outside the BMP
        } else {
          throw new InvalidReportException(
              field,
              String.format(
                  "holds a lone surrogate U+%04X at index %d, which cannot be encoded",
                  (int) c, i));
        }
      }
    }
    return value;
  }

  /** {@link #optional} without a length cap, for the strings the model sets none on. */
  static String text(String field, String value) {
    return optional(field, nonNull(field, value), Integer.MAX_VALUE);
  }

  static Map<String, String> stringMap(String field, Map<String, String> map, int maxValue) {
    nonNull(field, map);
    if (map.size() > MAX_MAP_ENTRIES) {
      throw new InvalidReportException(
          field, "has " + map.size() + " entries, at most " + MAX_MAP_ENTRIES + " allowed");
    }
    for (var e : map.entrySet()) {
      required(field + " key", nonNull(field + " key", e.getKey()), MAX_IDENTIFIER);
      String valueField = field + "[" + e.getKey() + "]";
      optional(valueField, nonNull(valueField, e.getValue()), maxValue);
    }
    if (map.isEmpty()) {
      return Map.of();
    }
    // sorted, so that iteration (and so every encoding and digest) is the same in every JVM run
    return Collections.unmodifiableSortedMap(new TreeMap<>(map));
  }

  /** Longest grouping id: it is written whole as a label value, which holds at most 63. */
  static final int MAX_GROUPING_ID = 63;

  /**
   * A grouping id, written into object names and into the {@code tally.dev/grouping} label: a
   * lowercase DNS-1123 label, so that it is written as it is and two ids never meet.
   */
  static String groupingId(String field, String id) {
    required(field, id, MAX_GROUPING_ID);
    boolean ok = isAlnum(id.charAt(0)) && isAlnum(id.charAt(id.length() - 1));
    for (int i = 0; ok && i < id.length(); i++) {
      char c = id.charAt(i);
      ok = isAlnum(c) || c == '-';
    }
    if (!ok) {
      throw new InvalidReportException(
          field,
          "'"
              + id
              + "' cannot be written into object names and labels: use lowercase letters, digits"
              + " and '-', starting and ending with a letter or digit");
    }
    return id;
  }

  /** Longest input name: it is written whole as a label value, which holds at most 63. */
  static final int MAX_INPUT_NAME = 63;

  /**
   * An input's name, written into object names and into the {@code tally.dev/input} label: runs of
   * lowercase letters and digits joined by single '-', so that it is written as it is and the
   * {@code --} that follows it in a name is the first of the name (docs/DESIGN.md §4.3).
   */
  static String inputName(String field, String name) {
    required(field, name, MAX_INPUT_NAME);
    boolean ok = isAlnum(name.charAt(0)) && isAlnum(name.charAt(name.length() - 1));
    for (int i = 0; ok && i < name.length(); i++) {
      char c = name.charAt(i);
      ok = isAlnum(c) || (c == '-' && name.charAt(i - 1) != '-');
    }
    if (!ok) {
      throw new InvalidReportException(
          field,
          "'"
              + name
              + "' cannot be written into object names and labels: use lowercase letters and"
              + " digits, joined by single '-'");
    }
    return name;
  }

  private static boolean isAlnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  static <T> T nonNull(String field, @Nullable T value) {
    if (value == null) {
      throw new InvalidReportException(field, "is required");
    }
    return value;
  }

  /** An immutable copy of {@code list}, refusing a null list or element with its path. */
  static <T> List<T> listOf(String field, @Nullable List<T> list) {
    nonNull(field, list);
    try {
      // an immutable JDK list (no null in it by construction) is returned as it is, unread:
      // the aggregator hands each report its partition's results this way
      return List.copyOf(list);
    } catch (NullPointerException e) {
      InvalidReportException.requireNoNulls(field, list); // names the first null element
      throw e;
    }
  }

  /** An immutable copy of {@code set}, refusing a null set or element with the field. */
  static <T> Set<T> setOf(String field, @Nullable Set<T> set) {
    nonNull(field, set);
    for (T t : set) {
      if (t == null) {
        throw new InvalidReportException(field, "holds a null element");
      }
    }
    return Set.copyOf(set);
  }
}
