package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.ReportAggregator;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.partials.PartialReportsInput;
import dev.tally.report.fabric8.trivy.TrivyInput;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The aggregator names the input the controller reads (docs/DESIGN.md §6.8): the builder refuses
 * one that names another, which would take that input's aggregates for its own (report-kyverno's
 * KyvernoInputNameTest: and lets Kyverno's layout, which names no input, keep the default).
 */
@EnableKubernetesMockClient(crud = true)
class ControllerInputCheckTest {
  KubernetesMockServer server;
  KubernetesClient client;

  @BeforeEach
  void setUp() {
    client = MockCluster.client(server);
  }

  @AfterEach
  void tearDown() {
    MockCluster.close(client);
  }

  private AggregatorController build(Supplier<ReportAggregator> aggregators, ReportInput input) {
    return AggregatorController.builder(client).aggregator(aggregators).input(input).build();
  }

  @Test
  void anAggregatorThatDoesNotNameTheInputReadIsRefused() {
    assertThatThrownBy(() -> build(() -> ReportAggregator.builder().build(), new TrivyInput()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("input is 'tally'")
        .hasMessageContaining("reads 'trivy'")
        .hasMessageContaining("ReportAggregator.builder().input(\"trivy\")");
    assertThatThrownBy(
            () ->
                build(
                    () -> ReportAggregator.builder().input("trivy").build(),
                    new PartialReportsInput()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reads 'tally'");
  }

  @Test
  void anAggregatorThatNamesTheInputReadIsBuilt() {
    try (AggregatorController trivy =
            build(() -> ReportAggregator.builder().input("trivy").build(), new TrivyInput());
        AggregatorController tally =
            build(() -> ReportAggregator.builder().build(), new PartialReportsInput())) {
      assertThat(java.util.List.of(trivy, tally)).noneMatch(AggregatorController::isLeading);
      assertThat(new PartialReportsInput().name()).isEqualTo("tally");
      assertThat(new TrivyInput().name()).isEqualTo("trivy");
    }
  }
}
