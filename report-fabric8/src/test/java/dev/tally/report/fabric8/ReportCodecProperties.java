package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.Serialization;
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
