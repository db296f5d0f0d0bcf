package dev.tally.report.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Change;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/** The end-to-end benchmark reads the workload from JSON and writes what aggregating it writes. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EndToEndBenchmarkTest {
  private final EndToEndBenchmark bench = new EndToEndBenchmark();
  private final ReferenceWorkload workload = ReferenceWorkload.reference(10_000);

  @BeforeAll
  void encode() {
    bench.results = 10_000;
    bench.encodeInput();
  }

  @Test
  void theInputIsOnePartialReportObjectPerSubjectAsJson() {
    assertThat(bench.documents).hasSize(1_000);
    JsonNode first = Serialization.jsonMapper().readTree(bench.documents.get(0));
    assertThat(first.get("apiVersion").asString()).isEqualTo("tally.dev/v1alpha1");
    assertThat(first.get("kind").asString()).isEqualTo("PartialReport");
    assertThat(first.get("spec").get("results")).hasSize(10);
    assertThat(first.get("metadata").get("ownerReferences")).hasSize(1);
  }

  @Test
  void decodeOnlyGivesBackTheWorkloadsPartialReports() {
    assertThat(bench.decodeOnly()).isEqualTo(workload.partials());
  }

  @Test
  void endToEndWritesTheBodiesOfAggregatingTheWorkload() {
    ReportAggregator aggregator = EndToEndBenchmark.aggregator();
    workload.partials().forEach(aggregator::apply);
    List<String> expected = new ArrayList<>();
    for (Change.Create c : aggregator.flush().creates()) {
      expected.add(Serialization.asJson(ReportCodec.encode(c.report())));
    }
    assertThat(expected).hasSize(100);

    List<String> bodies = bench.endToEnd();
    assertThat(bodies).isEqualTo(expected);
    int results = 0;
    for (String body : bodies) {
      JsonNode report = Serialization.jsonMapper().readTree(body);
      assertThat(report.get("kind").asString()).isEqualTo("PolicyReport");
      results += report.get("results").size();
    }
    assertThat(results).isEqualTo(10_000);
  }

  @Test
  void decodeAndAggregateCreatesEveryNamespacesReport() {
    var changes = bench.decodeAndAggregate();
    assertThat(changes.creates()).hasSize(100);
    assertThat(changes.creates().stream().mapToInt(c -> c.report().results().size()).sum())
        .isEqualTo(10_000);
  }

  @Test
  void decodingMakesNewStringsForEveryInvocation() {
    List<PartialReport> first = bench.decodeOnly();
    List<PartialReport> second = bench.decodeOnly();
    var firstStrings = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    firstStrings.addAll(
        FreshInputsTest.strings(first).stream().filter(s -> s.length() > 8).toList());
    assertThat(FreshInputsTest.strings(second).stream().filter(s -> s.length() > 8))
        .noneMatch(firstStrings::contains);
  }
}
