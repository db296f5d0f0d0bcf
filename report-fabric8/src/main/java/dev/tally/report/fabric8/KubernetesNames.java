package dev.tally.report.fabric8;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/** Deterministic, valid object names and label values derived from arbitrary strings. */
final class KubernetesNames {
  /** Longest label value Kubernetes accepts. */
  static final int MAX_LABEL_VALUE = 63;

  private KubernetesNames() {}

  /**
   * A DNS-1123 subdomain: {@code readable} lower-cased and cleaned, truncated, then a hash of
   * {@code identity} so that two identities never share a name even when their readable parts do.
   */
  static String objectName(String readable, String identity) {
    String hash = digest(identity, 12);
    String clean = clean(readable.toLowerCase(Locale.ROOT), 63 - hash.length() - 1, true);
    return clean.isEmpty() ? hash : clean + "-" + hash;
  }

  /**
   * A valid label value: the value itself when it is one, otherwise a cleaned prefix and a hash, so
   * that selecting by it stays exact.
   */
  static String labelValue(String value) {
    String clean = clean(value, MAX_LABEL_VALUE, false);
    if (clean.equals(value)) {
      return value;
    }
    String hash = digest(value, 10);
    String prefix = clean(value, MAX_LABEL_VALUE - hash.length() - 1, false);
    return prefix.isEmpty() ? hash : prefix + "-" + hash;
  }

  /** The first {@code hexChars} hex digits of the SHA-256 of {@code s}. */
  static String digest(String s, int hexChars) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d).substring(0, hexChars);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  private static String clean(String s, int max, boolean dnsOnly) {
    var sb = new StringBuilder();
    for (int i = 0; i < s.length() && sb.length() < max; i++) {
      char c = s.charAt(i);
      boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
      boolean upper = c >= 'A' && c <= 'Z';
      if (alnum || (upper && !dnsOnly)) {
        sb.append(c);
      } else if (dnsOnly ? c == '-' : c == '.' || c == '-' || c == '_') {
        sb.append(c);
      } else {
        sb.append('-');
      }
    }
    // names and label values must start and end with an alphanumeric character
    int start = 0;
    int end = sb.length();
    while (start < end && !Character.isLetterOrDigit(sb.charAt(start))) {
      start++;
    }
    while (end > start && !Character.isLetterOrDigit(sb.charAt(end - 1))) {
      end--;
    }
    return sb.substring(start, end);
  }
}
