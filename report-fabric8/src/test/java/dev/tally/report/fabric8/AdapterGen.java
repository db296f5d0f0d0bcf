package dev.tally.report.fabric8;

import static dev.tally.report.api.testing.WideModel.between;
import static dev.tally.report.api.testing.WideModel.coin;
import static dev.tally.report.api.testing.WideModel.coverageKey;
import static dev.tally.report.api.testing.WideModel.result;
import static dev.tally.report.api.testing.WideModel.results;
import static dev.tally.report.api.testing.WideModel.subject;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.api.testing.WideModel;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.quicktheories.core.Gen;

/**
 * QuickTheories generators of what only the adapter handles: aggregates as it writes or observes
 * them, and evaluations (partial reports whose subject may have no uid yet). Built from the shared
 * draws of the report-api test-jar ({@link WideModel}).
 */
public final class AdapterGen {
  private AdapterGen() {}

  /** Any aggregate Tally could write or observe, of any kind. */
  public static Gen<AggregateReport> aggregates() {
    return in -> {
      ReportKind kind = ReportKind.values()[(int) between(in, 0, 3)];
      String ns = kind.namespaced() ? "ns-" + between(in, 0, 9) : "";
      List<Result> results = results(in, ns, 6);
      Map<String, String> labels = new LinkedHashMap<>();
      if (coin(in)) {
        labels.put(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_VALUE);
        labels.put(WireNames.GROUP_LABEL, "g" + between(in, 0, 999));
      }
      Optional<Subject> scope = coin(in) ? Optional.of(subject(in, ns, true)) : Optional.empty();
      Optional<Subject> owner = coin(in) ? scope : Optional.empty();
      Optional<ReportConfiguration> configuration = Optional.empty();
      if (ReportFormat.of(kind).orElseThrow().carriesConfiguration() && coin(in)) {
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
  public static Gen<PartialReport> evaluations() {
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
      return new PartialReport(
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
