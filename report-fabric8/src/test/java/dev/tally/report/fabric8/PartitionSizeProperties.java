package dev.tally.report.fabric8;

import static dev.tally.report.api.testing.WideModel.between;
import static dev.tally.report.api.testing.WideModel.coin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.EncodedSize;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.testing.HostileModel;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;

/**
 * Limits are never exceeded: every partition an aggregator writes, encoded by this adapter exactly
 * as the writer sends it, takes at most {@code maxBytes}, whatever its subjects and results are
 * made of (3-byte characters, surrogate pairs, control characters that JSON escapes to 6 bytes,
 * quotes, fields at their maximum length), for every grouping and both formats. And the size model
 * of report-api, which the split relies on, is the real encoding byte for byte.
 */
class PartitionSizeProperties {
  private static final List<Grouping> GROUPINGS =
      List.of(Grouping.perSubject(), Grouping.perNamespace(), Grouping.perNamespaceAndPolicy());

  /** What one example feeds an aggregator: two batches of partial reports, a flush after each. */
  record Scenario(
      Grouping grouping,
      ReportFormat format,
      ReportLimits limits,
      List<PartialReport> first,
      List<PartialReport> second) {
    @Override
    public String toString() {
      int results = 0;
      for (PartialReport p : first) {
        results += p.results().size();
      }
      for (PartialReport p : second) {
        results += p.results().size();
      }
      return grouping
          + " "
          + format
          + " "
          + limits
          + ", "
          + (first.size() + second.size())
          + " partials of "
          + results
          + " results";
    }
  }

  private static Gen<Scenario> scenarios(Grouping grouping, ReportFormat format) {
    return in -> {
      int maxBytes = ReportLimits.MIN_MAX_BYTES + (int) between(in, 0, 16 * 1024);
      int maxResults = coin(in) ? ReportLimits.DEFAULT_MAX_RESULTS : (int) between(in, 1, 60);
      Set<ResultStatus> filter =
          between(in, 0, 3) == 0 ? Set.of(ResultStatus.FAIL, ResultStatus.WARN) : Set.of();
      String shared = HostileModel.namespace(in);
      List<Subject> subjects = new ArrayList<>();
      for (int i = 0; i < between(in, 1, 3); i++) {
        subjects.add(HostileModel.subject(in, coin(in) ? shared : HostileModel.namespace(in)));
      }
      List<CoverageKey> keys = new ArrayList<>();
      for (int i = 0; i < between(in, 1, 4); i++) {
        keys.add(HostileModel.coverageKey(in));
      }
      return new Scenario(
          grouping,
          format,
          new ReportLimits(maxResults, maxBytes, filter),
          partials(in, subjects, keys, 0),
          partials(in, subjects, keys, 1));
    };
  }

  /** One or two partial reports per subject, observed in {@code round}, of a few keys each. */
  private static List<PartialReport> partials(
      RandomnessSource in, List<Subject> subjects, List<CoverageKey> keys, int round) {
    List<PartialReport> out = new ArrayList<>();
    for (Subject subject : subjects) {
      for (int producer = 0; producer < between(in, 1, 2); producer++) {
        Set<CoverageKey> coverage = new LinkedHashSet<>();
        for (int i = 0; i < between(in, 1, keys.size()); i++) {
          coverage.add(keys.get((int) between(in, 0, keys.size() - 1)));
        }
        int maxMessage = (int) between(in, 0, 1500);
        List<Result> results = new ArrayList<>();
        for (CoverageKey key : coverage) {
          for (int i = 0; i < between(in, 0, 30); i++) {
            results.add(HostileModel.result(in, subject, key, maxMessage));
          }
        }
        out.add(
            PartialReport.builder()
                .producer("producer-" + producer)
                .subject(subject)
                .coverage(coverage)
                .results(results)
                .observedAt(Timestamp.ofSeconds(1_000L * (round + 1) + between(in, 0, 9)))
                .build());
      }
    }
    return out;
  }

  /** The bytes the writer sends for a report: the adapter's resource, as fabric8 serializes it. */
  private static long encodedBytes(AggregateReport report) {
    return utf8(Serialization.asJson(ReportCodec.encode(report)));
  }

  private static long utf8(String json) {
    return json.getBytes(StandardCharsets.UTF_8).length;
  }

  /** Runs {@code check} on everything a scenario writes and on its final aggregates. */
  private interface PartitionCheck {
    void check(Scenario s, AggregateReport partition);
  }

  /**
   * Applies {@code p} unless the aggregator refuses it: a hostile subject may be one that cannot
   * own its report in a grouping scoped to it (DESIGN §9.10), and a refused report changes nothing.
   */
  private static void applyUnlessRefused(ReportAggregator a, PartialReport p) {
    try {
      a.apply(p);
    } catch (InvalidReportException e) {
      assertThat(e.field()).startsWith("subject.");
    }
  }

  private static void forEachPartition(long seed, PartitionCheck check) {
    for (Grouping grouping : GROUPINGS) {
      for (ReportFormat format : ReportFormat.values()) {
        qt().withFixedSeed(seed)
            .withExamples(40)
            // a scenario is large and shrinks slowly; what failed is in the assertion's message
            .withShrinkCycles(20)
            .forAll(scenarios(grouping, format))
            .checkAssert(
                s -> {
                  ReportAggregator a =
                      ReportAggregator.builder()
                          .grouping(s.grouping())
                          .format(s.format())
                          .limits(s.limits())
                          .build();
                  List<AggregateReport> written = new ArrayList<>();
                  s.first().forEach(p -> applyUnlessRefused(a, p));
                  written.addAll(reports(a.flush()));
                  s.second().forEach(p -> applyUnlessRefused(a, p));
                  written.addAll(reports(a.flush()));
                  written.addAll(a.aggregates());
                  for (AggregateReport partition : written) {
                    check.check(s, partition);
                  }
                });
      }
    }
  }

  private static List<AggregateReport> reports(ChangeSet changes) {
    List<AggregateReport> out = new ArrayList<>();
    for (Change c : changes.changes()) {
      if (c instanceof Change.Create create) {
        out.add(create.report());
      } else if (c instanceof Change.Update update) {
        out.add(update.report());
      }
    }
    return out;
  }

  @Test
  void everyPartitionEncodesToAtMostMaxBytes() {
    forEachPartition(
        0x51_2e_b17eL,
        (s, partition) ->
            assertThat(encodedBytes(partition))
                .as("%s of %d results in %s", partition.ref(), partition.results().size(), s)
                .isLessThanOrEqualTo(s.limits().maxBytes()));
  }

  @Test
  void theSizeModelIsTheRealEncoding() {
    forEachPartition(
        0xe2_70_de11L,
        (s, partition) -> {
          AggregateResource resource = ReportCodec.encode(partition);
          long whole = utf8(Serialization.asJson(resource));
          long results = utf8(Serialization.asJson(resource.getResults()));
          assertThat(EncodedSize.of(partition)).as("%s in %s", partition.ref(), s).isEqualTo(whole);
          assertThat(EncodedSize.envelope(partition))
              .as("envelope of %s in %s", partition.ref(), s)
              .isEqualTo(whole - results);
        });
  }
}
