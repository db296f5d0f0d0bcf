package dev.tally.report.api.testing;

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
import org.quicktheories.impl.Constraint;

/**
 * Model values drawn straight from a QuickTheories {@link RandomnessSource}, spread over the whole
 * valid range rather than {@link RandomModel}'s small colliding pools: empty and non-ASCII strings,
 * multi-line messages, every result shape (one subject with or without a uid, several subjects, a
 * selector with match expressions), timestamps up to {@link Timestamp#MAX_SECONDS}. For tests of
 * encodings and sizes, where the corners of each field matter more than collisions; build a {@code
 * Gen} as {@code in -> WideModel.result(in, ...)}.
 */
public final class WideModel {
  private static final String[] WORDS = {
    "alpha", "beta", "gamma", "delta", "require-labels", "disallow-privileged", "x.y_z", "Ünï"
  };

  private WideModel() {}

  /** A number in {@code [lo, hi]}. */
  public static long between(RandomnessSource in, long lo, long hi) {
    return in.next(Constraint.between(lo, hi));
  }

  public static boolean coin(RandomnessSource in) {
    return between(in, 0, 1) == 1;
  }

  /** A word, some of them with punctuation or non-ASCII letters. */
  public static String word(RandomnessSource in) {
    return WORDS[(int) between(in, 0, WORDS.length - 1)];
  }

  /** Empty half of the time, else a word and a digit. */
  public static String maybe(RandomnessSource in) {
    return coin(in) ? "" : word(in) + between(in, 0, 9);
  }

  /** A valid DNS-1123 object name. */
  public static String dnsName(RandomnessSource in) {
    return "n" + between(in, 0, 999_999);
  }

  /** A Pod or Deployment in {@code namespace}, with a uid or (not yet created) without. */
  public static Subject subject(RandomnessSource in, String namespace, boolean withUid) {
    return new Subject(
        coin(in) ? "v1" : "apps/v1",
        coin(in) ? "Pod" : "Deployment",
        namespace,
        dnsName(in),
        withUid ? "uid-" + between(in, 0, 1_000_000) : "");
  }

  /** A result of {@code key} whose subjects, if any, are in {@code namespace}. */
  public static Result result(RandomnessSource in, String namespace, CoverageKey key) {
    var b =
        Result.builder()
            .source(key.source())
            .policy(key.policy())
            .rule(maybe(in))
            .status(ResultStatus.values()[(int) between(in, 0, 4)])
            .category(maybe(in))
            .message(coin(in) ? "" : "message " + word(in) + "\nline two: " + between(in, 0, 99));
    if (coin(in)) {
      b.severity(Severity.values()[(int) between(in, 0, 4)]);
    }
    if (coin(in)) {
      b.scored(coin(in));
    }
    if (coin(in)) {
      Map<String, String> props = new LinkedHashMap<>();
      for (int i = 0; i < between(in, 1, 3); i++) {
        props.put("k" + i, maybe(in));
      }
      b.properties(props);
    }
    if (coin(in)) {
      b.timestamp(
          new Timestamp(between(in, 0, Timestamp.MAX_SECONDS), (int) between(in, 0, 999_999_999)));
    }
    long shape = between(in, 0, 3);
    if (shape == 1) {
      b.resource(subject(in, namespace, coin(in)));
    } else if (shape == 2) {
      b.resources(List.of(subject(in, namespace, true), subject(in, namespace, false)));
    } else if (shape == 3) {
      b.resourceSelector(
          coin(in)
              ? LabelSelector.matching(Map.of("app", word(in)))
              : new LabelSelector(
                  Map.of(),
                  List.of(
                      new LabelSelector.Requirement("tier", "In", List.of("web", "db")),
                      new LabelSelector.Requirement("legacy", "DoesNotExist", List.of()))));
    }
    return b.build();
  }

  /** A key of source {@code ""} or {@code kyverno} and one of six policies. */
  public static CoverageKey coverageKey(RandomnessSource in) {
    return new CoverageKey(coin(in) ? "" : "kyverno", "policy-" + between(in, 0, 5));
  }

  /** 0 to {@code max} results, each of a random key. */
  public static List<Result> results(RandomnessSource in, String namespace, int max) {
    List<Result> out = new ArrayList<>();
    long n = between(in, 0, max);
    for (int i = 0; i < n; i++) {
      out.add(result(in, namespace, coverageKey(in)));
    }
    return out;
  }
}
