package dev.tally.report.fabric8;

import dev.tally.report.api.PartialReport;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * Tally's own {@code PartialReport} and {@code ClusterPartialReport} objects, the default input.
 */
final class TallyPartialsInput implements FeedInput {
  @Override
  public List<Kind> kinds(KubernetesClient client) {
    var partials = client.resources(PartialReportResource.class).inAnyNamespace();
    var clusterPartials = client.resources(ClusterPartialReportResource.class);
    return List.of(
        new Kind("partialreports", partials::list, () -> partials.runnableInformer(0)),
        new Kind(
            "clusterpartialreports",
            clusterPartials::list,
            () -> clusterPartials.runnableInformer(0)));
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
