package dev.tally.report.merge.names;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Fingerprint;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.api.WireNames;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Deterministic object names: valid DNS-1123 subdomains of at most 253 characters, and distinct for
 * distinct groups of a namespace, whatever names a grouping (or a tenant choosing uids under the
 * per-subject grouping) makes up.
 *
 * <p>A group's base name is {@code tally-<grouping>-<group>} when that is already made of {@code
 * [a-z0-9-]}, at most {@link #MAX_BASE} characters long, and does not end like a digested name.
 * Otherwise it is the sanitized name (every other character turned into '-', cut to {@link
 * #MAX_BASE}) followed by '-' and {@link #DIGEST_CHARS} hex digits of a SHA-256 digest of (grouping
 * id, group). So a plain name never equals a digested one (only digested ones end in '-' and {@link
 * #DIGEST_CHARS} hex digits), and two digested names meet only if 128 bits of SHA-256 do: a
 * collision nobody can construct, which would otherwise make two groups write one object.
 * Partitions other than the first add {@code .<suffix>}; a base name never holds a '.', so a
 * partition name never equals a base name.
 *
 * <p>In Kyverno's layout ({@link ReportLayout#KYVERNO}) a group's base name is the group itself
 * (the resource's uid, as Kyverno names its reports) when that is made of {@code [a-z0-9-]}, starts
 * and ends with a letter or digit, is at most {@link #MAX_BASE} characters long and does not end
 * like a digested name; otherwise it is the digested name {@link #base(String, String)
 * base("kyverno", group)} gives. The same argument keeps names distinct: a plain name is its group,
 * and never ends like a digested one.
 *
 * <p>An input other than the default ({@link AggregatorConfig#DEFAULT_INPUT}) is named in Tally's
 * layout: {@code tally-<input>--<grouping>-<group>} when {@code <grouping>-<group>} is made of
 * {@code [a-z0-9-]} with no {@code --} and no '-' at either end, the whole is at most {@link
 * #MAX_BASE} characters long and does not end like a digested name; otherwise {@code
 * tally-<input>--}, the sanitized {@code <grouping>-<group>} cut to fit {@link #MAX_BASE}, '-' and
 * {@link #DIGEST_CHARS} hex digits of SHA-256 over (input, grouping id, group). No name of the
 * default input holds {@code --} (sanitizing makes each run of '-' one), and the {@code --} after
 * the input is the first of such a name (an input name has none and ends with a letter or digit):
 * so the names of two inputs never meet, and within one input the argument above applies. Kyverno's
 * layout names no input: its names are Kyverno's.
 */
public final class ReportNames {
  /** The longest base name kept as it is, or cut to before a digest is added. */
  public static final int MAX_BASE = 180;

  private static final int DIGEST_CHARS = 32;

  /** The longest base name: {@link #MAX_BASE} chars, a '-' and a digest. */
  public static final int MAX_BASE_LENGTH = MAX_BASE + 1 + DIGEST_CHARS;

  private ReportNames() {}

  /**
   * The base name of {@code group} of grouping {@code groupingId} in {@code layout}, written by an
   * aggregator of {@code input}: the input's own names in Tally's layout, and in Kyverno's layout
   * (which names no input) the names {@link #base(ReportLayout, String, String)} gives.
   */
  public static String base(ReportLayout layout, String input, String groupingId, String group) {
    if (!layout.namesItsWriter() || input.equals(AggregatorConfig.DEFAULT_INPUT)) {
      return base(layout, groupingId, group);
    }
    String prefix = "tally-" + input + "--";
    String rest = groupingId + "-" + group;
    String clean = sanitize(rest);
    String plain = prefix + rest;
    if (clean.equals(rest) && plain.length() <= MAX_BASE && !endsLikeADigest(plain)) {
      return plain;
    }
    int room = MAX_BASE - prefix.length(); // an input name is at most 63 characters
    String head = trimDashes(clean.length() > room ? clean.substring(0, room) : clean);
    return prefix + head + "-" + digest(input, groupingId, group);
  }

  /** The base name of {@code group} of grouping {@code groupingId} in {@code layout}. */
  public static String base(ReportLayout layout, String groupingId, String group) {
    if (layout.namesItsWriter()) {
      return base(groupingId, group);
    }
    if (group.length() <= MAX_BASE && PLAIN.matcher(group).matches() && !endsLikeADigest(group)) {
      return group;
    }
    // digested: "tally-kyverno-<group>" is plain only when the group is (a plain name here)
    return base(KYVERNO_ID, group);
  }

  /** The grouping id digested names of Kyverno's layout are made with. */
  private static final String KYVERNO_ID = "kyverno";

  /** A name made of lower-case letters, digits and '-', starting and ending with no '-'. */
  private static final Pattern PLAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  /** The base name of {@code group} of grouping {@code groupingId} in Tally's layout. */
  public static String base(String groupingId, String group) {
    String original = "tally-" + groupingId + "-" + group;
    String clean = sanitize(original);
    if (clean.equals(original) && clean.length() <= MAX_BASE && !endsLikeADigest(clean)) {
      return clean;
    }
    String head = clean.length() > MAX_BASE ? clean.substring(0, MAX_BASE) : clean;
    head = trimDashes(head);
    return head + "-" + digest(groupingId, group);
  }

  private static boolean endsLikeADigest(String name) {
    int start = name.length() - DIGEST_CHARS;
    if (start < 1 || name.charAt(start - 1) != '-') {
      return false;
    }
    for (int i = start; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  /** The first {@link #DIGEST_CHARS} hex digits of SHA-256 over the lengths and UTF-8 of both. */
  private static String digest(String groupingId, String group) {
    byte[] a = groupingId.getBytes(StandardCharsets.UTF_8);
    byte[] b = group.getBytes(StandardCharsets.UTF_8);
    return KubernetesNames.sha256Hex(
        DIGEST_CHARS,
        ByteBuffer.allocate(4).putInt(a.length).array(),
        a,
        ByteBuffer.allocate(4).putInt(b.length).array(),
        b);
  }

  /** The first {@link #DIGEST_CHARS} hex digits of SHA-256 over the lengths and UTF-8 of all. */
  private static String digest(String input, String groupingId, String group) {
    byte[] i = input.getBytes(StandardCharsets.UTF_8);
    byte[] a = groupingId.getBytes(StandardCharsets.UTF_8);
    byte[] b = group.getBytes(StandardCharsets.UTF_8);
    return KubernetesNames.sha256Hex(
        DIGEST_CHARS,
        ByteBuffer.allocate(4).putInt(i.length).array(),
        i,
        ByteBuffer.allocate(4).putInt(a.length).array(),
        a,
        ByteBuffer.allocate(4).putInt(b.length).array(),
        b);
  }

  /** The name of a group's partition: its base name, and {@code .<suffix>} but for the first. */
  public static String partition(String base, String suffix) {
    return suffix.isEmpty() ? base : base + "." + suffix;
  }

  /** The value of the {@code tally.dev/group} label: a digest of the group's identity. */
  public static String groupLabel(String groupingId, String namespace, String group) {
    return Fingerprint.hex(Fingerprint.of(groupingId, namespace, group));
  }

  /**
   * The value of the {@code tally.dev/group} label of a group of {@code input}: the default input's
   * as {@link #groupLabel(String, String, String)}, another's a digest of the input too.
   */
  public static String groupLabel(String input, String groupingId, String namespace, String group) {
    return input.equals(AggregatorConfig.DEFAULT_INPUT)
        ? groupLabel(groupingId, namespace, group)
        : Fingerprint.hex(Fingerprint.of(input, groupingId, namespace, group));
  }

  /** {@code s} as a DNS name ({@link KubernetesNames#clean}), each run of '-' made one. */
  public static String sanitize(String s) {
    String clean = KubernetesNames.clean(s.toLowerCase(Locale.ROOT), Integer.MAX_VALUE, true);
    StringBuilder sb = new StringBuilder(clean.length());
    for (int i = 0; i < clean.length(); i++) {
      char c = clean.charAt(i);
      if (c != '-' || sb.charAt(sb.length() - 1) != '-') {
        sb.append(c); // clean starts with a letter or digit, so sb is never empty at a '-'
      }
    }
    return sb.toString();
  }

  /**
   * The labels of every partition of group {@code group} of namespace {@code namespace}, written by
   * an aggregator of {@code input}: in Kyverno's layout exactly {@code
   * app.kubernetes.io/managed-by: kyverno}, as Kyverno labels its reports; in Tally's, the
   * managed-by label, the group's, the grouping's and, for any input but the default, {@code
   * tally.dev/input}.
   */
  public static Map<String, String> labels(
      ReportLayout layout, String input, String groupingId, String namespace, String group) {
    if (!layout.namesItsWriter()) {
      return new TreeMap<>(Map.of(WireNames.MANAGED_BY_LABEL, layout.managedBy()));
    }
    // sorted like every map of the model, so digests iterate it in the same order
    Map<String, String> labels =
        new TreeMap<>(
            Map.of(
                WireNames.MANAGED_BY_LABEL,
                WireNames.MANAGED_BY_VALUE,
                WireNames.GROUP_LABEL,
                groupLabel(input, groupingId, namespace, group),
                WireNames.GROUPING_LABEL,
                sanitize(groupingId)));
    if (!input.equals(AggregatorConfig.DEFAULT_INPUT)) {
      labels.put(WireNames.INPUT_LABEL, input);
    }
    return labels;
  }

  /**
   * The input of an aggregate labelled {@code labels} in Tally's layout: its {@code
   * tally.dev/input} label, or the default input when it has none (every aggregate written before
   * inputs had names is the default input's).
   */
  public static String inputOf(Map<String, String> labels) {
    return labels.getOrDefault(WireNames.INPUT_LABEL, AggregatorConfig.DEFAULT_INPUT);
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
