package dev.tally.report.files;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.CarriedFields;
import dev.tally.report.fabric8.TestResources;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The fields the reader keeps for each version are those of the official CRDs it was served with
 * (report-fabric8's test resources {@code crds/}): a field of a version's schema is never pruned as
 * unknown, and a field of none is.
 */
class WireVersionTest {

  /** The top-level and result fields of {@code version} in one CRD file, added to the sets. */
  private static void fieldsOf(String crd, String version, Set<String> top, Set<String> result) {
    Map<?, ?> doc = (Map<?, ?>) CarriedFields.published(TestResources.crd(crd)).get(0);
    List<?> versions = (List<?>) ((Map<?, ?>) doc.get("spec")).get("versions");
    Map<?, ?> served =
        versions.stream()
            .map(v -> (Map<?, ?>) v)
            .filter(v -> version.equals(v.get("name")))
            .findFirst()
            .orElseThrow();
    Map<?, ?> schema = (Map<?, ?>) ((Map<?, ?>) served.get("schema")).get("openAPIV3Schema");
    Map<?, ?> properties = (Map<?, ?>) schema.get("properties");
    properties.keySet().forEach(k -> top.add((String) k));
    Map<?, ?> items = (Map<?, ?>) ((Map<?, ?>) properties.get("results")).get("items");
    ((Map<?, ?>) items.get("properties")).keySet().forEach(k -> result.add((String) k));
  }

  private static void assertFields(WireVersion version, String... crds) {
    Set<String> top = new TreeSet<>();
    Set<String> result = new TreeSet<>();
    String name = version.apiVersion().substring(version.apiVersion().indexOf('/') + 1);
    for (String crd : crds) {
      fieldsOf(crd, name, top, result);
    }
    assertThat(new TreeSet<>(version.topFields())).as(version + " top").isEqualTo(top);
    assertThat(new TreeSet<>(version.resultFields())).as(version + " result").isEqualTo(result);
  }

  /**
   * {@code wgpolicyk8s.io/v1alpha1} was served with several result schemas; a result holds what the
   * final one and that of March 2021 (result, properties, timestamp) named.
   */
  @Test
  void v1alpha1HoldsTheFieldsOfEverySchemaItWasServedWith() {
    assertFields(
        WireVersion.WGPOLICY_V1ALPHA1,
        "superseded/wgpolicyk8s.io_policyreports.v1alpha1.yaml",
        "superseded/wgpolicyk8s.io_policyreports.v1alpha1-2021-03.yaml");
  }

  @Test
  void theOtherVersionsHoldTheFieldsOfTheirSchema() {
    assertFields(
        WireVersion.WGPOLICY_V1ALPHA2,
        "wgpolicyk8s.io_policyreports.v1alpha2.yaml",
        "wgpolicyk8s.io_clusterpolicyreports.v1alpha2.yaml");
    assertFields(
        WireVersion.OPENREPORTS_V1ALPHA1,
        "openreports.io_reports.v1alpha1.yaml",
        "openreports.io_clusterreports.v1alpha1.yaml");
  }
}
