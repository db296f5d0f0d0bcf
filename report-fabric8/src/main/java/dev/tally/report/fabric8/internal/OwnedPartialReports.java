package dev.tally.report.fabric8.internal;

import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.client.Requests;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import java.util.List;

/**
 * Lists the partial report objects Tally wrote (labelled {@code app.kubernetes.io/managed-by:
 * tally}), each LIST one request through {@link Requests}. Whoever sweeps or marks partial reports
 * (adoption, the audit's stale marks) reads them through here, so they all see the same set.
 */
public final class OwnedPartialReports {
  private OwnedPartialReports() {}

  /** The namespaced partial reports of every namespace. */
  public static List<PartialReportResource> inAnyNamespace(
      KubernetesClient client, Requests calls) {
    return owned(
        calls,
        "list partialreports",
        client.resources(PartialReportResource.class).inAnyNamespace());
  }

  /** The namespaced partial reports of {@code namespace}. */
  public static List<PartialReportResource> inNamespace(
      KubernetesClient client, Requests calls, String namespace) {
    return owned(
        calls,
        "list partialreports",
        client.resources(PartialReportResource.class).inNamespace(namespace));
  }

  /** The cluster-scoped partial reports. */
  public static List<ClusterPartialReportResource> clusterScoped(
      KubernetesClient client, Requests calls) {
    return owned(
        calls, "list clusterpartialreports", client.resources(ClusterPartialReportResource.class));
  }

  private static <T extends HasMetadata> List<T> owned(
      Requests calls,
      String what,
      FilterWatchListDeletable<T, ? extends KubernetesResourceList<T>, ?> resources) {
    return calls.call(
        what,
        () ->
            resources
                .withLabel(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_VALUE)
                .list()
                .getItems());
  }
}
