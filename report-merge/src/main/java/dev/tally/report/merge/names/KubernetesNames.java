package dev.tally.report.merge.names;

import dev.tally.report.api.Subject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Deterministic, valid object names and label values derived from arbitrary strings: the same input
 * gives the same name on every replica and every run, and distinct identities never share a name.
 * The names of docs/DESIGN.md §4 are made here and in {@link ReportNames} (aggregates), both with
 * {@link #sha256Hex} and {@link #clean}: one digest and one sanitiser for every name Tally stores.
 */
public final class KubernetesNames {
  /** Longest label value Kubernetes accepts. */
  static final int MAX_LABEL_VALUE = 63;

  /** Longest DNS-1123 label, and so the longest name this class makes. */
  static final int MAX_DNS_LABEL = 63;

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private KubernetesNames() {}

  /**
   * The API group of {@code apiVersion} as the API server parses it: what comes before its '/',
   * empty for the core group ({@code v1}, {@code /v1}).
   */
  public static String apiGroup(String apiVersion) {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }

  /**
   * Whether {@code s} is a DNS-1123 label: at most 63 lower-case letters, digits and '-', starting
   * and ending with a letter or digit.
   */
  public static boolean isDnsLabel(String s) {
    return s.length() <= MAX_DNS_LABEL && DNS_LABEL.matcher(s).matches();
  }

  /**
   * {@code name} itself when it is a DNS-1123 label, otherwise {@link #objectName objectName(name,
   * name)}: a cleaned prefix and a hash of the whole, so that long names stay distinct.
   */
  public static String fitName(String name) {
    return isDnsLabel(name) ? name : objectName(name, name);
  }

  /**
   * A DNS-1123 subdomain: {@code readable} lower-cased and cleaned, truncated, then a hash of
   * {@code identity} so that two identities never share a name even when their readable parts do.
   */
  public static String objectName(String readable, String identity) {
    String hash = digest(identity, 12);
    String clean = clean(readable.toLowerCase(Locale.ROOT), 63 - hash.length() - 1, true);
    return clean.isEmpty() ? hash : clean + "-" + hash;
  }

  /**
   * A valid label value: the value itself when it is one, otherwise a cleaned prefix and a hash, so
   * that selecting by it stays exact.
   */
  public static String labelValue(String value) {
    String clean = clean(value, MAX_LABEL_VALUE, false);
    if (clean.equals(value)) {
      return value;
    }
    String hash = digest(value, 10);
    String prefix = clean(value, MAX_LABEL_VALUE - hash.length() - 1, false);
    return prefix.isEmpty() ? hash : prefix + "-" + hash;
  }

  /**
   * The name of the one partial report object of {@code producer} about {@code subject}: {@code
   * <kind>-<name>} cleaned, then 12 hex digits of a digest of (producer, apiVersion, kind,
   * namespace, name). Independent of the uid, so an evaluation published before its subject existed
   * is the same object once adopted.
   */
  public static String partialReport(String producer, Subject subject) {
    return objectName(
        subject.kind() + "-" + subject.name(),
        producer
            + "\n"
            + subject.apiVersion()
            + "\n"
            + subject.kind()
            + "\n"
            + subject.namespace()
            + "\n"
            + subject.name());
  }

  /** The first {@code hexChars} hex digits of the SHA-256 of {@code s}. */
  public static String digest(String s, int hexChars) {
    return sha256Hex(hexChars, s.getBytes(StandardCharsets.UTF_8));
  }

  /** The first {@code hexChars} hex digits of the SHA-256 of {@code parts}, fed in order. */
  static String sha256Hex(int hexChars, byte[]... parts) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
    for (byte[] part : parts) {
      sha.update(part);
    }
    return HexFormat.of().formatHex(sha.digest()).substring(0, hexChars);
  }

  /**
   * {@code s} with every character outside the alphabet turned into '-', cut to {@code max} and
   * trimmed to start and end with a letter or digit. The alphabet of a DNS name ({@code dnsOnly}):
   * lower-case letters, digits and '-'; of a label value: also upper-case letters, '.' and '_'.
   */
  static String clean(String s, int max, boolean dnsOnly) {
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
