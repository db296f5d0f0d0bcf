package dev.tally.report.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.Result;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Summary;
import dev.tally.report.fabric8.AdapterGen;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Reading what Tally writes, in every version it reads, and writing it back. Moved from
 * report-fabric8's {@code ReportCodecProperties} with the reader.
 */
class ReadReportProperties {

  @Test
  void readingWhatTallyWritesAndWritingItBackIsIdentity() {
    qt().withFixedSeed(20270105L)
        .withExamples(300)
        .forAll(AdapterGen.aggregates())
        .checkAssert(
            report -> {
              String written = Serialization.asJson(ReportCodec.encode(report));
              for (String text :
                  List.of(Serialization.asYaml(ReportCodec.encode(report)), written)) {
                List<ReadReport> read = ReportFiles.read(text, "default");
                assertThat(read).hasSize(1);
                assertThat(read.get(0).report()).isEqualTo(report);
                assertThat(read.get(0).warnings()).isEmpty();
                assertThat(read.get(0).apiVersion()).isEqualTo(report.ref().kind().apiVersion());
                assertThat(Serialization.asJson(ReportFiles.encode(read.get(0))))
                    .isEqualTo(written);
              }
            });
  }

  @Test
  void aV1alpha1ReportRoundTripsInItsVersionAndConvertsBack() {
    qt().withFixedSeed(1L)
        .withExamples(150)
        .forAll(AdapterGen.aggregates())
        .assuming(r -> !ReportFormat.of(r.ref().kind()).orElseThrow().carriesConfiguration())
        .checkAssert(
            generated -> {
              // what v1alpha1 can hold: no result source, three severities (a timestamp, as
              // its schema of March 2021 has one)
              List<Result> results =
                  generated.results().stream()
                      .map(
                          r ->
                              r.toBuilder()
                                  .source("")
                                  .severity(
                                      r.severity()
                                          .filter(s -> s != Severity.CRITICAL && s != Severity.INFO)
                                          .orElse(null))
                                  .build())
                      .toList();
              AggregateReport report =
                  new AggregateReport(
                      generated.ref(),
                      generated.labels(),
                      generated.scope(),
                      generated.owner(),
                      generated.configuration(),
                      results,
                      Summary.of(results),
                      generated.contentHash());
              ReadReport old =
                  ReportFiles.convert(ReadReport.of(report), "wgpolicyk8s.io/v1alpha1");
              AggregateResource encoded = ReportFiles.encode(old);
              assertThat(encoded.getApiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha1");
              ReadReport read = ReportFiles.read(Serialization.asYaml(encoded), "default").get(0);
              assertThat(read.apiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha1");
              assertThat(read.report()).isEqualTo(report);
              assertThat(read.warnings()).isEmpty();
              assertThat(
                      Serialization.asJson(
                          ReportFiles.encode(
                              ReportFiles.convert(read, report.ref().kind().apiVersion()))))
                  .isEqualTo(Serialization.asJson(ReportCodec.encode(report)));
            });
  }
}
