package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Result;
import dev.tally.report.api.Summary;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.resource.WireResult;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Published results in this module's test resources decode through the adapter's codec. Kept here
 * from {@code SamplesTest} when reading whole reports from files moved to report-files.
 */
class WireResultSamplesTest {

  @Test
  @SuppressWarnings("unchecked")
  void kyvernoBackgroundScanResultsFollowTheSameResultSchema() throws IOException {
    GenericKubernetesResource scan =
        Serialization.unmarshal(
            TestResources.sample("kyverno-background-scan-report-pss.yaml"),
            GenericKubernetesResource.class);
    var spec = (Map<String, Object>) scan.getAdditionalProperties().get("spec");
    List<WireResult> wire =
        List.of(
            Serialization.unmarshal(Serialization.asJson(spec.get("results")), WireResult[].class));
    List<Result> results = ReportCodec.decodeResults("spec.results", wire, "");
    assertThat(results).hasSize(19).allMatch(x -> x.source().equals("kyverno"));
    assertThat(Summary.of(results).total()).isEqualTo(19);
  }
}
