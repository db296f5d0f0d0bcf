package dev.tally.report.api.testing;

import static dev.tally.report.api.testing.WideModel.between;
import static dev.tally.report.api.testing.WideModel.coin;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.LabelSelector;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.quicktheories.core.RandomnessSource;

/**
 * Valid model values whose strings are as expensive to encode as the model allows: characters that
 * take 3 bytes of UTF-8 ('€', CJK), valid surrogate pairs (4 bytes), control characters U+0000 to
 * U+001F (escaped to 6 bytes, a backslash, 'u' and four hex digits, or to 2 like a newline), quotes
 * and backslashes, often at the maximum length of their field. For tests of sizes and limits, where
 * the expensive corners matter; drawn straight from a QuickTheories {@link RandomnessSource} like
 * {@link WideModel}.
 *
 * <p>Every string is valid for its field: within its length cap (counted in UTF-16 chars, as the
 * model counts), non-blank where the field is required, and free of lone surrogates.
 */
public final class HostileModel {
  /** Longest names, kinds, apiVersions, sources, policies, rules and categories. */
  public static final int MAX_IDENTIFIER = Subject.MAX_FIELD;

  private static final String ASCII = "az09AZ-._ /:";
  private static final String ESCAPED = "\"\\";
  private static final String TWO_BYTES = "\u00e9\u00df\u00ff\u0080\u07ff";
  private static final String THREE_BYTES = "\u20ac\u6f22\u5b57\u0800\u2028\ufffd\uffff";
  private static final int[] FOUR_BYTES = {0x1F600, 0x1D11E, 0x10000, 0x10FFFF};

  /** The character classes, by how they encode. */
  private enum CharClass {
    ASCII,
    ESCAPED,
    CONTROL,
    TWO_BYTES,
    THREE_BYTES,
    FOUR_BYTES
  }

  private HostileModel() {}

  /**
   * A string of at most {@code maxChars} chars, possibly empty: short or maximal, of one character
   * class or mixed. A quarter of the draws are {@code maxChars} characters that each escape to 6
   * bytes, the most a char can take.
   */
  public static String string(RandomnessSource in, int maxChars) {
    long shape = between(in, 0, 7);
    if (shape == 0) {
      return "";
    }
    if (shape <= 2) {
      return "\u0001".repeat(maxChars);
    }
    int length = shape <= 4 ? maxChars : (int) between(in, 1, Math.max(1, Math.min(maxChars, 40)));
    CharClass only = shape == 3 || shape == 5 ? pick(in) : null;
    StringBuilder sb = new StringBuilder(length);
    while (sb.length() < length) {
      CharClass c = only != null ? only : pick(in);
      if (c == CharClass.FOUR_BYTES && sb.length() + 2 > length) {
        c = CharClass.THREE_BYTES; // no room for a pair: never split one
      }
      append(in, sb, c);
    }
    return sb.toString();
  }

  /** {@link #string}, never empty nor blank: for required fields. */
  public static String required(RandomnessSource in, int maxChars) {
    String s = string(in, maxChars);
    // a blank string is all whitespace, which has no surrogates: its first char can go
    return s.isBlank() ? "x" + (s.isEmpty() ? "" : s.substring(1)) : s;
  }

  /** A namespace: cluster scope ({@code ""}) a third of the time, else a hostile one. */
  public static String namespace(RandomnessSource in) {
    return between(in, 0, 2) == 0 ? "" : required(in, Subject.MAX_NAMESPACE);
  }

  /** A subject in {@code namespace} whose other fields are hostile, with a uid. */
  public static Subject subject(RandomnessSource in, String namespace) {
    return new Subject(
        string(in, MAX_IDENTIFIER),
        required(in, MAX_IDENTIFIER),
        namespace,
        required(in, MAX_IDENTIFIER),
        required(in, Subject.MAX_UID));
  }

  /** A key with a hostile source (maybe empty) and policy. */
  public static CoverageKey coverageKey(RandomnessSource in) {
    return new CoverageKey(string(in, MAX_IDENTIFIER), required(in, MAX_IDENTIFIER));
  }

  /**
   * A result of {@code key} whose strings are hostile and whose message has at most {@code
   * maxMessage} chars; it names {@code subject} (or nothing, so the aggregator fills it in), or
   * hostile objects of the same namespace, or a selector.
   */
  public static Result result(
      RandomnessSource in, Subject subject, CoverageKey key, int maxMessage) {
    var b =
        Result.builder()
            .source(key.source())
            .policy(key.policy())
            .rule(string(in, MAX_IDENTIFIER))
            .status(ResultStatus.values()[(int) between(in, 0, 4)])
            .category(string(in, MAX_IDENTIFIER))
            .message(string(in, maxMessage));
    if (coin(in)) {
      b.severity(Severity.values()[(int) between(in, 0, 4)]);
    }
    if (coin(in)) {
      b.scored(coin(in));
    }
    if (coin(in)) {
      Map<String, String> props = new LinkedHashMap<>();
      for (int i = 0; i < between(in, 1, 3); i++) {
        props.put(required(in, 40) + i, string(in, 200));
      }
      b.properties(props);
    }
    if (coin(in)) {
      b.timestamp(
          new Timestamp(between(in, 0, Timestamp.MAX_SECONDS), (int) between(in, 0, 999_999_999)));
    }
    long shape = between(in, 0, 3);
    if (shape == 1) {
      b.resource(subject);
    } else if (shape == 2) {
      List<Subject> resources = new ArrayList<>();
      for (int i = 0; i < between(in, 1, 2); i++) {
        resources.add(subject(in, subject.namespace()));
      }
      b.resources(resources);
    } else if (shape == 3) {
      b.resourceSelector(
          new LabelSelector(
              Map.of(required(in, 40), string(in, 63)),
              List.of(
                  new LabelSelector.Requirement(
                      required(in, 40), "In", List.of(string(in, 40), string(in, 40))))));
    }
    return b.build();
  }

  private static CharClass pick(RandomnessSource in) {
    return CharClass.values()[(int) between(in, 0, CharClass.values().length - 1)];
  }

  private static void append(RandomnessSource in, StringBuilder sb, CharClass c) {
    switch (c) {
      case ASCII -> sb.append(ASCII.charAt((int) between(in, 0, ASCII.length() - 1)));
      case ESCAPED -> sb.append(ESCAPED.charAt((int) between(in, 0, ESCAPED.length() - 1)));
      case CONTROL -> sb.append((char) between(in, 0, 0x1F));
      case TWO_BYTES -> sb.append(TWO_BYTES.charAt((int) between(in, 0, TWO_BYTES.length() - 1)));
      case THREE_BYTES ->
          sb.append(THREE_BYTES.charAt((int) between(in, 0, THREE_BYTES.length() - 1)));
      case FOUR_BYTES ->
          sb.appendCodePoint(FOUR_BYTES[(int) between(in, 0, FOUR_BYTES.length - 1)]);
    }
  }
}
