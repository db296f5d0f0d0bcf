package dev.tally.report.audit.worker;

import dev.tally.report.audit.GroupVersionKind;
import dev.tally.report.audit.KindCensus;
import dev.tally.report.audit.UnitCatalog;
import dev.tally.report.fabric8.internal.ApiCalls;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Counts the objects to audit cheaply: a LIST with {@code limit=1} per kind, reading {@code
 * remainingItemCount} (one object per request, one APF seat). The kinds {@link
 * UnitCatalog#kindsToSplit} says are heavy enough to split are then counted per namespace the same
 * way; this class only counts. Run once per run, by the member that plans it.
 */
final class ClusterCensus {
  private final KubernetesClient client;
  private final ApiCalls calls;

  ClusterCensus(KubernetesClient client, ApiCalls calls) {
    this.client = client;
    this.calls = calls;
  }

  /**
   * The census of {@code targets}: every kind's total, then per-namespace counts of the kinds
   * {@link UnitCatalog#kindsToSplit} names, for {@link UnitCatalog#unitsAsCounted}.
   */
  List<KindCensus> take(List<AuditTarget> targets, int plannedMembers, double epsilon) {
    List<KindCensus> totals = new ArrayList<>();
    for (AuditTarget t : targets) {
      long n = count(t, null);
      totals.add(
          t.namespaced()
              ? new KindCensus(t.gvk(), true, n, Map.of())
              : KindCensus.clusterScoped(t.gvk(), n));
    }
    Set<GroupVersionKind> split = UnitCatalog.kindsToSplit(totals, plannedMembers, epsilon);
    @Nullable List<String> namespaces = null;
    List<KindCensus> census = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      AuditTarget t = targets.get(i);
      if (!split.contains(t.gvk())) {
        census.add(totals.get(i));
        continue;
      }
      if (namespaces == null) {
        namespaces =
            calls.call(
                "list namespaces",
                () ->
                    client.namespaces().list().getItems().stream()
                        .map(ns -> ns.getMetadata().getName())
                        .sorted()
                        .toList());
      }
      Map<String, Long> byNamespace = new TreeMap<>();
      for (String ns : namespaces) {
        long n = count(t, ns);
        if (n > 0) {
          byNamespace.put(ns, n);
        }
      }
      census.add(KindCensus.namespaced(t.gvk(), byNamespace));
    }
    return census;
  }

  private long count(AuditTarget target, @Nullable String namespace) {
    var options = new ListOptionsBuilder().withLimit(1L).build();
    GenericKubernetesResourceList list =
        calls.call(
            "count " + target.gvk(),
            () -> {
              var resources = client.genericKubernetesResources(target.context());
              if (!target.namespaced()) {
                return resources.list(options);
              }
              return namespace == null
                  ? resources.inAnyNamespace().list(options)
                  : resources.inNamespace(namespace).list(options);
            });
    Long remaining = list.getMetadata() == null ? null : list.getMetadata().getRemainingItemCount();
    return list.getItems().size() + (remaining == null ? 0 : remaining);
  }
}
