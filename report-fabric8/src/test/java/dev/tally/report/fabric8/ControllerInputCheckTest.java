package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.kyverno.KyvernoInput;
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
 * one that names another, which would take that input's aggregates for its own, and lets Kyverno's
 * layout, which names no input, keep the default.
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
    assertThatThrownBy(
            () ->
                build(
                    () ->
                        ReportAggregator.builder()
                            .grouping(Grouping.perNamespace())
                            .input("trivy")
                            .build(),
                    KyvernoInput.keep()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reads 'kyverno'");
  }

  @Test
  void anAggregatorThatNamesTheInputReadIsBuilt() {
    try (AggregatorController trivy =
            build(() -> ReportAggregator.builder().input("trivy").build(), new TrivyInput());
        AggregatorController tally =
            build(() -> ReportAggregator.builder().build(), new PartialReportsInput());
        AggregatorController keep =
            build(
                () ->
                    ReportAggregator.builder()
                        .grouping(Grouping.perNamespace())
                        .input("kyverno")
                        .build(),
                KyvernoInput.keep())) {
      assertThat(java.util.List.of(trivy, tally, keep)).noneMatch(AggregatorController::isLeading);
      assertThat(new PartialReportsInput().name()).isEqualTo("tally");
      assertThat(new TrivyInput().name()).isEqualTo("trivy");
      assertThat(KyvernoInput.keep().name()).isEqualTo("kyverno");
    }
  }

  /** In Kyverno's layout the input is in no name and no label: the default may stay. */
  @Test
  void inKyvernosLayoutTheDefaultMayStay() {
    Supplier<ReportAggregator> kyvernoLayout =
        () -> ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).build();
    Supplier<ReportAggregator> named =
        () ->
            ReportAggregator.builder()
                .grouping(Grouping.kyvernoPerResource())
                .input("kyverno")
                .build();
    try (AggregatorController unnamed = build(kyvernoLayout, KyvernoInput.deleteAfterMerge());
        AggregatorController kyverno = build(named, KyvernoInput.deleteAfterMerge())) {
      assertThat(unnamed.isLeading()).isFalse();
      assertThat(kyverno.isLeading()).isFalse();
    }
  }
}
