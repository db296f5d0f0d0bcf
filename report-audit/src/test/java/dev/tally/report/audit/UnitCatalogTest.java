package dev.tally.report.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.InvalidReportException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UnitCatalogTest {
  private static final GroupVersionKind POD = GroupVersionKind.of("", "v1", "Pod");
  private static final GroupVersionKind DEPLOYMENT =
      GroupVersionKind.of("apps", "v1", "Deployment");
  private static final GroupVersionKind CLUSTER_ROLE =
      GroupVersionKind.of("rbac.authorization.k8s.io", "v1", "ClusterRole");

  @Test
  void splitsOnlyNamespacedKindsAboveTheThreshold() {
    List<WorkUnit> units =
        UnitCatalog.units(
            List.of(
                KindCensus.namespaced(POD, Map.of("a", 600L, "b", 400L, "c", 0L)),
                KindCensus.namespaced(DEPLOYMENT, Map.of("a", 30L, "b", 20L)),
                KindCensus.clusterScoped(CLUSTER_ROLE, 5000)),
            100);
    assertThat(units)
        .containsExactly(
            WorkUnit.ofKind(CLUSTER_ROLE, 5000),
            WorkUnit.ofKind(DEPLOYMENT, 50),
            WorkUnit.ofNamespace(POD, "a", 600),
            WorkUnit.ofNamespace(POD, "b", 400),
            WorkUnit.ofNamespace(POD, "c", 1));
  }

  @Test
  void theCensusCountsPerNamespaceExactlyTheKindsAboveTheThreshold() {
    // totals 1000 + 50 + 5000 over 4 members at 0.25: the threshold is 378
    List<KindCensus> totals =
        List.of(
            new KindCensus(POD, true, 1000, Map.of()),
            new KindCensus(DEPLOYMENT, true, 50, Map.of()),
            KindCensus.clusterScoped(CLUSTER_ROLE, 5000));
    assertThat(UnitCatalog.splitThreshold(6050, 4, 0.25)).isEqualTo(378);
    assertThat(UnitCatalog.kindsToSplit(totals, 4, 0.25))
        .as("a heavy cluster-scoped kind cannot be split")
        .containsExactly(POD);
    assertThat(UnitCatalog.kindsToSplit(totals, 1, 0.25)).isEmpty();
    assertThat(UnitCatalog.kindsToSplit(totals, 64, 0.25))
        .containsExactlyInAnyOrder(DEPLOYMENT, POD);
    assertThatThrownBy(
            () ->
                UnitCatalog.kindsToSplit(
                    List.of(KindCensus.clusterScoped(POD, 1), KindCensus.clusterScoped(POD, 1)),
                    4,
                    0.25))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("census[1].gvk");
  }

  @Test
  void unitsAsCountedSplitTheCountedKindsWhateverTheirSums() {
    // the second pass found fewer pods than the first: the kind was chosen, it is still split
    List<WorkUnit> units =
        UnitCatalog.unitsAsCounted(
            List.of(
                KindCensus.namespaced(POD, Map.of("a", 2L, "b", 1L)),
                new KindCensus(DEPLOYMENT, true, 50, Map.of()),
                KindCensus.namespaced(GroupVersionKind.of("", "v1", "Secret"), Map.of()),
                KindCensus.clusterScoped(CLUSTER_ROLE, 5000)));
    assertThat(units)
        .containsExactly(
            WorkUnit.ofKind(CLUSTER_ROLE, 5000),
            WorkUnit.ofKind(DEPLOYMENT, 50),
            WorkUnit.ofNamespace(POD, "a", 2),
            WorkUnit.ofNamespace(POD, "b", 1),
            WorkUnit.ofKind(GroupVersionKind.of("", "v1", "Secret"), 1));
  }

  @Test
  void unitIdsAreConfigMapKeys() {
    assertThat(WorkUnit.ofNamespace(POD, "kube-system", 1).id())
        .isEqualTo("Pod.v1.core_kube-system");
    assertThat(WorkUnit.ofKind(CLUSTER_ROLE, 1).id())
        .isEqualTo("ClusterRole.v1.rbac.authorization.k8s.io")
        .matches("[-._a-zA-Z0-9]+");
  }

  @Test
  void idsParseBack() {
    for (WorkUnit u :
        List.of(
            WorkUnit.ofNamespace(POD, "kube-system", 7),
            WorkUnit.ofKind(CLUSTER_ROLE, 1),
            WorkUnit.ofKind(DEPLOYMENT, 3))) {
      assertThat(WorkUnit.fromId(u.id(), u.weight())).isEqualTo(u);
    }
    assertThatThrownBy(() -> WorkUnit.fromId("Pod", 1))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageStartingWith("unit:");
  }

  @Test
  void thresholdAllowsTheBalanceBound() {
    assertThat(UnitCatalog.splitThreshold(10_000, 4, 0.25)).isEqualTo(625);
    assertThat(UnitCatalog.splitThreshold(3, 4, 0.25)).isEqualTo(1);
  }

  @Test
  void refusesAKindTwiceAndBadValues() {
    assertThatThrownBy(
            () ->
                UnitCatalog.units(
                    List.of(
                        KindCensus.clusterScoped(CLUSTER_ROLE, 1),
                        KindCensus.clusterScoped(CLUSTER_ROLE, 2)),
                    10))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("census[1].gvk");
    assertThatThrownBy(() -> WorkUnit.ofNamespace(POD, "Not_A_Label", 1))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageStartingWith("namespace:");
    assertThatThrownBy(() -> WorkUnit.ofKind(POD, 0))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageStartingWith("weight:");
    assertThatThrownBy(() -> GroupVersionKind.of("apps", "v1", "bad kind"))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageStartingWith("kind:");
    assertThatThrownBy(() -> new KindCensus(CLUSTER_ROLE, false, 1, Map.of("a", 1L)))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageStartingWith("byNamespace:");
  }
}
