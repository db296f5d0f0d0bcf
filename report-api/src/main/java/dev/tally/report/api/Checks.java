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
    if (value.isBlank()) {
      throw new InvalidReportException(field, "is required");
    }
    return optional(field, value, maxLength);
  }

  static String optional(String field, String value, int maxLength) {
    if (value.length() > maxLength) {
      throw new InvalidReportException(
          field, "is " + value.length() + " characters long, at most " + maxLength + " allowed");
    }
    return value;
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
    return List.copyOf(InvalidReportException.requireNoNulls(field, list));
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
