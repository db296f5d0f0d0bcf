package dev.tally.report.fabric8;

import dev.tally.report.api.PartialReport;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.PagedList;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;

/**
 * Tally's own {@code PartialReport} and {@code ClusterPartialReport} objects, the default input.
 */
final class TallyPartialsInput implements FeedInput {
  @Override
  public void checkAccess(KubernetesClient client, ApiCalls calls) {
    String what = "list partialreports";
    try {
      calls.call(
          what,
          () ->
              client
                  .resources(PartialReportResource.class)
                  .inAnyNamespace()
                  .list(new ListOptionsBuilder().withLimit(1L).build()));
    } catch (KubernetesClientException e) {
      throw new RequestFailedException(what, e);
    }
  }

  @Override
  public List<SharedIndexInformer<? extends HasMetadata>> informers(KubernetesClient client) {
    return List.of(
        client.resources(PartialReportResource.class).inAnyNamespace().runnableInformer(0),
        client.resources(ClusterPartialReportResource.class).runnableInformer(0));
  }

  @Override
  public List<HasMetadata> listAll(KubernetesClient client, ApiCalls calls) {
    List<HasMetadata> listed = new ArrayList<>();
    listed.addAll(
        PagedList.all(
            calls,
            "list partialreports",
            options ->
                client.resources(PartialReportResource.class).inAnyNamespace().list(options)));
    listed.addAll(
        PagedList.all(
            calls,
            "list clusterpartialreports",
            options -> client.resources(ClusterPartialReportResource.class).list(options)));
    return listed;
  }

  @Override
  @SuppressWarnings("unchecked")
  public Statement decode(HasMetadata object) {
    PartialReport evaluation =
        ReportCodec.decodePartial((CustomResource<PartialReportSpec, Void>) object);
    // the publisher adopts its own reports: one without a uid waits for it
    return evaluation.adopted()
        ? new Statement.Ready(evaluation)
        : new Statement.AwaitsAdoption(evaluation.subject());
  }
}
