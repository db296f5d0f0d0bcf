package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.EncodedSize;
import dev.tally.report.api.Result;
import dev.tally.report.api.testing.WideModel;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * report-api estimates the encoded size of a report without encoding it, to split groups under
 * maxBytes. The estimate must match what this adapter really writes.
 */
class EncodedSizeProperties {

  /** Reports of a realistic size: tens to hundreds of results. */
  private static Gen<AggregateReport> realisticReports() {
    Gen<AggregateReport> base = AdapterGen.aggregates();
    return in -> {
      AggregateReport r = base.generate(in);
      List<Result> results = new ArrayList<>();
      long n = WideModel.between(in, 20, 200);
      for (int i = 0; i < n; i++) {
        results.add(WideModel.result(in, r.ref().namespace(), WideModel.coverageKey(in)));
      }
      return new AggregateReport(
          r.ref(),
          r.labels(),
          r.scope(),
          r.owner(),
          r.configuration(),
          results,
          dev.tally.report.api.Summary.of(results),
          r.contentHash());
    };
  }

  private static long encodedBytes(AggregateReport r) {
    return Serialization.asJson(ReportCodec.encode(r)).getBytes(StandardCharsets.UTF_8).length;
  }

  @Test
  void estimateIsWithinFivePercentOfTheRealEncodedSize() {
    qt().withFixedSeed(5L)
        .withExamples(200)
        .forAll(realisticReports())
        .checkAssert(
            r -> {
              long real = encodedBytes(r);
              long estimate = EncodedSize.of(r);
              assertThat((double) Math.abs(estimate - real))
                  .as("estimate %d, real %d bytes", estimate, real)
                  .isLessThanOrEqualTo(real * 0.05);
            });
  }

  @Test
  void eachResultEstimateIsExact() {
    qt().withFixedSeed(6L)
        .withExamples(500)
        .forAll(realisticReports())
        .checkAssert(
            r -> {
              Result first = r.results().get(0);
              assertThat(EncodedSize.of(first))
                  .isEqualTo(
                      Serialization.asJson(ReportCodec.encodeResult(first))
                          .getBytes(StandardCharsets.UTF_8)
                          .length);
            });
  }
}
