package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.kyverno.ClusterEphemeralReportResource;
import dev.tally.report.kyverno.EphemeralReportResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A refused Kyverno intermediate report is held as a stripped copy of its own class, namespaced or
 * not (report-fabric8's RefusedCopiesTest, for the classes of the Kyverno input): the copy keeps
 * the identity and drops the rest. In report-fabric8's package, as the copies are package-private.
 */
class KyvernoRefusedCopiesTest {
  @Test
  void aStrippedCopyOfAKyvernoReportIsOfItsOwnClass() {
    for (HasMetadata object :
        List.<HasMetadata>of(new EphemeralReportResource(), new ClusterEphemeralReportResource())) {
      object.setMetadata(
          new ObjectMetaBuilder()
              .withNamespace(object instanceof EphemeralReportResource ? "team" : null)
              .withName("r")
              .withUid("u-1")
              .withResourceVersion("7")
              .withLabels(Map.of("big", "x".repeat(1000)))
              .build());

      HasMetadata copy = InformerStores.stripped(object);

      assertThat(copy).isExactlyInstanceOf(object.getClass());
      assertThat(copy.getKind()).isEqualTo(object.getKind());
      assertThat(copy.getApiVersion()).isEqualTo(object.getApiVersion());
      assertThat(copy.getMetadata().getName()).isEqualTo("r");
      assertThat(copy.getMetadata().getUid()).isEqualTo("u-1");
      assertThat(copy.getMetadata().getResourceVersion()).isEqualTo("7");
      assertThat(copy.getMetadata().getLabels()).isNullOrEmpty();
      assertThat(InformerStores.isCopy(copy)).isTrue();
    }
  }
}
