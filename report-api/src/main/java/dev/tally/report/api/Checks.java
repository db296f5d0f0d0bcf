package dev.tally.report.api;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

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
    if (map.size() > MAX_MAP_ENTRIES) {
      throw new InvalidReportException(
          field, "has " + map.size() + " entries, at most " + MAX_MAP_ENTRIES + " allowed");
    }
    for (var e : map.entrySet()) {
      required(field + " key", e.getKey(), MAX_IDENTIFIER);
      optional(field + "[" + e.getKey() + "]", e.getValue(), maxValue);
    }
    if (map.isEmpty()) {
      return Map.of();
    }
    // sorted, so that iteration (and so every encoding and digest) is the same in every JVM run
    return Collections.unmodifiableSortedMap(new TreeMap<>(map));
  }

  static <T> T nonNull(String field, T value) {
    if (value == null) {
      throw new InvalidReportException(field, "is required");
    }
    return value;
  }
}
