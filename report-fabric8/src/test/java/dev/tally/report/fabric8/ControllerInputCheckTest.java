package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.ReportAggregator;
import dev.tally.report.fabric8.input.InputKind;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.input.Statement;
import dev.tally.report.fabric8.partials.PartialReportsInput;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The aggregator names the input the controller reads (docs/DESIGN.md §6.8): the builder refuses
 * one that names another, which would take that input's aggregates for its own (report-kyverno's
 * KyvernoInputNameTest: and lets Kyverno's layout, which names no input, keep the default). The
 * other input here is the test's own.
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

  /** An input of another tool, as the Kyverno, trivy and Gatekeeper inputs are. */
  private static final class WidgetInput implements ReportInput {
    @Override
    public String name() {
      return "widget";
    }

    @Override
    public List<InputKind> kinds(KubernetesClient client) {
      return List.of();
    }

    @Override
    public Statement decode(HasMetadata object) {
      throw new AssertionError("an input that reads no kind is given no object to decode");
    }
  }

  private AggregatorController build(Supplier<ReportAggregator> aggregators, ReportInput input) {
    return AggregatorController.builder(client).aggregator(aggregators).input(input).build();
  }

  @Test
  void anAggregatorThatDoesNotNameTheInputReadIsRefused() {
    assertThatThrownBy(() -> build(() -> ReportAggregator.builder().build(), new WidgetInput()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("input is 'tally'")
        .hasMessageContaining("reads 'widget'")
        .hasMessageContaining("ReportAggregator.builder().input(\"widget\")");
    assertThatThrownBy(
            () ->
                build(
                    () -> ReportAggregator.builder().input("widget").build(),
                    new PartialReportsInput()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reads 'tally'");
  }

  @Test
  void anAggregatorThatNamesTheInputReadIsBuilt() {
    try (AggregatorController widget =
            build(() -> ReportAggregator.builder().input("widget").build(), new WidgetInput());
        AggregatorController tally =
            build(() -> ReportAggregator.builder().build(), new PartialReportsInput())) {
      assertThat(java.util.List.of(widget, tally)).noneMatch(AggregatorController::isLeading);
      assertThat(new PartialReportsInput().name()).isEqualTo("tally");
      assertThat(new WidgetInput().name()).isEqualTo("widget");
    }
  }
}
