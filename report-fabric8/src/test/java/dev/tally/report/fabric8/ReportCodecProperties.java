package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Summary;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReadReport;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportCodecProperties {

  @Test
  void aggregateRoundTripThroughJsonIsIdentity() {
    qt().withFixedSeed(20261130L)
        .withExamples(400)
        .forAll(AdapterGen.aggregates())
        .checkAssert(
            report -> {
              AggregateResource resource = ReportCodec.encode(report);
              String json = Serialization.asJson(resource);
              AggregateResource read =
                  Serialization.unmarshal(json, ReportCodec.resourceClass(report.ref().kind()));
              AggregateReport decoded = ReportCodec.decode(read);
              assertThat(decoded).isEqualTo(report);
            });
  }

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
                List<ReadReport> read = ReportCodec.read(text, "default");
                assertThat(read).hasSize(1);
                assertThat(read.get(0).report()).isEqualTo(report);
                assertThat(read.get(0).warnings()).isEmpty();
                assertThat(read.get(0).apiVersion()).isEqualTo(report.ref().kind().apiVersion());
                assertThat(Serialization.asJson(ReportCodec.encode(read.get(0))))
                    .isEqualTo(written);
              }
            });
  }

  @Test
  void aV1alpha1ReportRoundTripsInItsVersionAndConvertsBack() {
    qt().withFixedSeed(1L)
        .withExamples(150)
        .forAll(AdapterGen.aggregates())
        .assuming(r -> !r.ref().kind().openReports())
        .checkAssert(
            generated -> {
              // what v1alpha1 can hold: no result source, no timestamp, three severities
              List<Result> results =
                  generated.results().stream()
                      .map(
                          r ->
                              r.toBuilder()
                                  .source("")
                                  .timestamp(null)
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
                  ReportCodec.convert(ReadReport.of(report), "wgpolicyk8s.io/v1alpha1");
              AggregateResource encoded = ReportCodec.encode(old);
              assertThat(encoded.getApiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha1");
              ReadReport read = ReportCodec.read(Serialization.asYaml(encoded), "default").get(0);
              assertThat(read.apiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha1");
              assertThat(read.report()).isEqualTo(report);
              assertThat(read.warnings()).isEmpty();
              assertThat(
                      Serialization.asJson(
                          ReportCodec.encode(
                              ReportCodec.convert(read, report.ref().kind().apiVersion()))))
                  .isEqualTo(Serialization.asJson(ReportCodec.encode(report)));
            });
  }

  @Test
  void encodingIsDeterministic() {
    qt().withFixedSeed(7L)
        .withExamples(100)
        .forAll(AdapterGen.aggregates())
        .checkAssert(
            report ->
                assertThat(Serialization.asJson(ReportCodec.encode(report)))
                    .isEqualTo(Serialization.asJson(ReportCodec.encode(report))));
  }

  @Test
  @SuppressWarnings("unchecked")
  void partialRoundTripThroughJsonIsIdentity() {
    qt().withFixedSeed(42L)
        .withExamples(400)
        .forAll(AdapterGen.evaluations())
        .checkAssert(
            evaluation -> {
              CustomResource<PartialReportSpec, Void> resource =
                  ReportCodec.encodePartial(evaluation, "name-1");
              String json = Serialization.asJson(resource);
              var read =
                  (CustomResource<PartialReportSpec, Void>)
                      Serialization.unmarshal(json, resource.getClass());
              assertThat(ReportCodec.decodePartial(read)).isEqualTo(evaluation);
              assertThat(read.getMetadata().getOwnerReferences().isEmpty())
                  .isEqualTo(!evaluation.adopted());
            });
  }
}
