package dev.tally.report.merge;

import java.util.Locale;

/**
 * Deterministic object names: valid DNS-1123 subdomains of at most 253 characters.
 *
 * <p>A group's base name is {@code tally-<grouping>-<group>} with every character outside {@code
 * [a-z0-9-]} turned into '-'. When that changed anything (so two groups could meet) or the name is
 * too long, a short digest of the original is appended. Partitions other than the first add {@code
 * .<suffix>}; a base name never holds a '.', so a partition name never equals a base name.
 */
final class ReportNames {
  static final int MAX_BASE = 200;

  private static final int DIGEST_CHARS = 10;

  /** The longest base name: {@link #MAX_BASE} chars, a '-' and a digest. */
  static final int MAX_BASE_LENGTH = MAX_BASE + 1 + DIGEST_CHARS;

  private ReportNames() {}

  static String base(String groupingId, String group) {
    String original = "tally-" + groupingId + "-" + group;
    String clean = sanitize(original);
    if (clean.equals(original) && clean.length() <= MAX_BASE) {
      return clean;
    }
    String digest = Fingerprint.hex(Fingerprint.of(groupingId, group)).substring(0, DIGEST_CHARS);
    String head = clean.length() > MAX_BASE ? clean.substring(0, MAX_BASE) : clean;
    head = trimDashes(head);
    return head + "-" + digest;
  }

  static String partition(String base, String suffix) {
    return suffix.isEmpty() ? base : base + "." + suffix;
  }

  /** The value of the {@code tally.dev/group} label: a digest of the group's identity. */
  static String groupLabel(String groupingId, String namespace, String group) {
    return Fingerprint.hex(Fingerprint.of(groupingId, namespace, group));
  }

  static String sanitize(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    boolean dash = false;
    for (char c : s.toLowerCase(Locale.ROOT).toCharArray()) {
      boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
      if (ok) {
        sb.append(c);
        dash = false;
      } else if (!dash) {
        sb.append('-');
        dash = true;
      }
    }
    return trimDashes(sb.toString());
  }

  private static String trimDashes(String s) {
    int a = 0;
    int b = s.length();
    while (a < b && s.charAt(a) == '-') {
      a++;
    }
    while (b > a && s.charAt(b - 1) == '-') {
      b--;
    }
    String t = s.substring(a, b);
    return t.isEmpty() ? "x" : t;
  }
}
