package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.LabelSelector;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;

/** QuickTheories generators for the report model, as the adapter's tests need them. */
final class ModelGen {
  private static final String[] WORDS = {
    "alpha", "beta", "gamma", "delta", "require-labels", "disallow-privileged", "x.y_z", "Ünï"
  };

  private ModelGen() {}

  static long between(RandomnessSource in, long lo, long hi) {
    return in.next(org.quicktheories.impl.Constraint.between(lo, hi));
  }

  static boolean coin(RandomnessSource in) {
    return between(in, 0, 1) == 1;
  }

  static String word(RandomnessSource in) {
    return WORDS[(int) between(in, 0, WORDS.length - 1)];
  }

  static String maybe(RandomnessSource in) {
    return coin(in) ? "" : word(in) + between(in, 0, 9);
  }

  static String dnsName(RandomnessSource in) {
    return "n" + between(in, 0, 999_999);
  }

  static Subject subject(RandomnessSource in, String namespace, boolean withUid) {
    return new Subject(
        coin(in) ? "v1" : "apps/v1",
        coin(in) ? "Pod" : "Deployment",
        namespace,
        dnsName(in),
        withUid ? "uid-" + between(in, 0, 1_000_000) : "");
  }

  static Result result(RandomnessSource in, String namespace, CoverageKey key) {
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

  static CoverageKey coverageKey(RandomnessSource in) {
    return new CoverageKey(coin(in) ? "" : "kyverno", "policy-" + between(in, 0, 5));
  }

  static List<Result> results(RandomnessSource in, String namespace, int max) {
    List<Result> out = new ArrayList<>();
    long n = between(in, 0, max);
    for (int i = 0; i < n; i++) {
      out.add(result(in, namespace, coverageKey(in)));
    }
    return out;
  }

  /** Any aggregate Tally could write or observe, of any kind. */
  static Gen<AggregateReport> aggregates() {
    return in -> {
      ReportKind kind = ReportKind.values()[(int) between(in, 0, 3)];
      String ns = kind.namespaced() ? "ns-" + between(in, 0, 9) : "";
      List<Result> results = results(in, ns, 6);
      Map<String, String> labels = new LinkedHashMap<>();
      if (coin(in)) {
        labels.put(AggregateReport.MANAGED_BY_LABEL, AggregateReport.MANAGED_BY_VALUE);
        labels.put(AggregateReport.GROUP_LABEL, "g" + between(in, 0, 999));
      }
      Optional<Subject> scope = coin(in) ? Optional.of(subject(in, ns, true)) : Optional.empty();
      Optional<Subject> owner = coin(in) ? scope : Optional.empty();
      Optional<ReportConfiguration> configuration = Optional.empty();
      if (kind.openReports() && coin(in)) {
        Set<ResultStatus> filter = EnumSet.noneOf(ResultStatus.class);
        if (coin(in)) {
          filter.add(ResultStatus.FAIL);
          filter.add(ResultStatus.WARN);
        }
        configuration = Optional.of(new ReportConfiguration((int) between(in, 1, 5000), filter));
      }
      return new AggregateReport(
          new ReportRef(kind, ns, "report-" + between(in, 0, 9999)),
          labels,
          scope,
          owner,
          configuration,
          results,
          Summary.of(results),
          coin(in) ? "" : "sha256-" + between(in, 0, 1 << 30));
    };
  }

  /** Any evaluation a producer could publish, adopted or not, namespaced or cluster-scoped. */
  static Gen<Evaluation> evaluations() {
    return in -> {
      String ns = coin(in) ? "" : "ns-" + between(in, 0, 9);
      Set<CoverageKey> coverage = new LinkedHashSet<>();
      for (int i = 0; i < between(in, 1, 3); i++) {
        coverage.add(coverageKey(in));
      }
      List<CoverageKey> keys = List.copyOf(coverage);
      List<Result> results = new ArrayList<>();
      for (int i = 0; i < between(in, 0, 5); i++) {
        results.add(result(in, ns, keys.get((int) between(in, 0, keys.size() - 1))));
      }
      return new Evaluation(
          coin(in) ? "admission" : "audit/member-" + between(in, 0, 3),
          subject(in, ns, coin(in) || coin(in)),
          coin(in) ? "" : String.valueOf(between(in, 1, 99999)),
          coin(in) || results.isEmpty() ? coverage : Set.of(),
          results,
          new Timestamp(between(in, 0, 4_000_000_000L), (int) between(in, 0, 999_999_999)),
          between(in, 0, 1000));
    };
  }
}
