package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Summary;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The published reports in this module's test resources ({@code samples/}) read through the codec
 * without loss.
 */
class SamplesTest {

  private static List<AggregateReport> read(String file) throws IOException {
    return ReportCodec.readDocuments(TestResources.sample(file), "default");
  }

  @Test
  void cisBenchmarkReportTakesTheReportLevelSource() throws IOException {
    List<AggregateReport> reports = read("openreports-sample-cis-k8s.yaml");
    assertThat(reports).hasSize(1);
    AggregateReport r = reports.get(0);
    assertThat(r.ref().kind()).isEqualTo(ReportKind.REPORT);
    assertThat(r.ref().namespace()).isEqualTo("default");
    assertThat(r.results()).isNotEmpty().allMatch(x -> x.source().equals("kube-bench-adapter"));
    assertThat(r.results().get(0).properties()).containsEntry("index", "1.2.2");
  }

  @Test
  void openreportsPolicyReportKindIsReadAsReport() throws IOException {
    List<AggregateReport> reports = read("openreports-sample-co.yaml");
    assertThat(reports)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.ref().kind()).isEqualTo(ReportKind.REPORT);
              assertThat(r.labels()).containsKey("policy.kubernetes.io/engine");
              assertThat(r.results()).extracting(Result::status).contains(ResultStatus.FAIL);
              assertThat(r.results().get(0).message()).contains("\n");
            });
  }

  @Test
  void falcoSampleHoldsANamespacedAndAClusterReport() throws IOException {
    List<AggregateReport> reports = read("openreports-sample-falco-policy.yaml");
    assertThat(reports)
        .extracting(r -> r.ref().kind())
        .containsExactly(ReportKind.REPORT, ReportKind.CLUSTER_REPORT);
    AggregateReport ns = reports.get(0);
    assertThat(ns.ref().namespace()).isEqualTo("my-namespace");
    assertThat(ns.results().get(0).resources().get(0).name()).isEqualTo("a-pod");
    assertThat(ns.summary()).isEqualTo(new Summary(0, 1, 0, 0, 0));
  }

  @Test
  void kyvernoSampleKeepsItsConfiguration() throws IOException {
    AggregateReport r = read("openreports-sample-v1beta2-kyverno.yaml").get(0);
    assertThat(r.configuration())
        .hasValueSatisfying(
            c -> {
              assertThat(c.maxResults()).isEqualTo(100);
              assertThat(c.statusFilter())
                  .containsExactlyInAnyOrder(
                      ResultStatus.PASS, ResultStatus.FAIL, ResultStatus.SKIP);
            });
    Result result = r.results().get(0);
    assertThat(result.timestamp())
        .hasValueSatisfying(t -> assertThat(t.seconds()).isEqualTo(1679565894L));
    assertThat(result.resources().get(0).uid()).isEqualTo("3407b31a-b0bb-4716-a443-f4aa15662ef2");
  }

  @Test
  void everySampleSurvivesAnEncodeDecodeRoundTrip() throws IOException {
    for (String file :
        List.of(
            "openreports-sample-cis-k8s.yaml",
            "openreports-sample-co.yaml",
            "openreports-sample-falco-policy.yaml",
            "openreports-sample-v1beta2-kyverno.yaml")) {
      for (AggregateReport r : read(file)) {
        AggregateResource encoded = ReportCodec.encode(r);
        var back = Serialization.unmarshal(Serialization.asJson(encoded), encoded.getClass());
        assertThat(ReportCodec.decode(back)).as(file).isEqualTo(r);
      }
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void kyvernoBackgroundScanResultsFollowTheSameResultSchema() throws IOException {
    GenericKubernetesResource scan =
        Serialization.unmarshal(
            TestResources.sample("kyverno-background-scan-report-pss.yaml"),
            GenericKubernetesResource.class);
    var spec = (Map<String, Object>) scan.getAdditionalProperties().get("spec");
    List<WireResult> wire =
        Serialization.unmarshal(
            Serialization.asJson(spec.get("results")),
            new tools.jackson.core.type.TypeReference<List<WireResult>>() {});
    List<Result> results = ReportCodec.decodeResults("spec.results", wire, "");
    assertThat(results).hasSize(19).allMatch(x -> x.source().equals("kyverno"));
    assertThat(Summary.of(results).total()).isEqualTo(19);
  }

  @Test
  void aDocumentOfAnotherKindIsRefusedWithItsIndex() {
    String yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
    assertThatThrownBy(() -> ReportCodec.readDocuments(yaml, "default"))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("documents[0].kind");
  }

  @Test
  void anUnknownStatusIsRefusedNamingTheField() {
    String yaml =
        "apiVersion: wgpolicyk8s.io/v1alpha2\nkind: PolicyReport\nmetadata:\n  name: x\n"
            + "results:\n- policy: a\n  result: pass\n- policy: b\n  result: maybe\n";
    assertThatThrownBy(() -> ReportCodec.readDocuments(yaml, "default"))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("documents[0].results[1].result")
        .hasMessageContaining("maybe");
  }
}
