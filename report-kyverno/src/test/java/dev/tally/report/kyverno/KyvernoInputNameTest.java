package dev.tally.report.kyverno;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.MockCluster;
import dev.tally.report.fabric8.input.ReportInput;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The controller's check that the aggregator names the input it reads (docs/DESIGN.md §6.8), for
 * the Kyverno input: an aggregator of another input is refused, one named {@code kyverno} is built,
 * and Kyverno's layout, which names no input, may keep the default.
 */
@EnableKubernetesMockClient(crud = true)
class KyvernoInputNameTest {
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
  void anAggregatorOfAnotherInputIsRefused() {
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
  void anAggregatorNamedKyvernoIsBuilt() {
    try (AggregatorController keep =
        build(
            () ->
                ReportAggregator.builder()
                    .grouping(Grouping.perNamespace())
                    .input("kyverno")
                    .build(),
            KyvernoInput.keep())) {
      assertThat(keep.isLeading()).isFalse();
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
