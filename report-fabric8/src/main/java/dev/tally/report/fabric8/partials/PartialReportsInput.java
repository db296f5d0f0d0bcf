package dev.tally.report.fabric8.partials;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.PartialReport;
import dev.tally.report.fabric8.input.InputKind;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.input.Statement;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.InputResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * Tally's own {@code PartialReport} and {@code ClusterPartialReport} objects, the default input.
 * They are the state: each stays until its producer replaces it or garbage collection removes it
 * with its subject, whose removal then retracts what it said ({@link
 * dev.tally.report.fabric8.input.InputServices#NONE}). A report without a subject uid waits for its
 * publisher to adopt it.
 */
public final class PartialReportsInput implements ReportInput {
  /** {@link AggregatorConfig#DEFAULT_INPUT}: the default input's aggregates name no input. */
  @Override
  public String name() {
    return AggregatorConfig.DEFAULT_INPUT;
  }

  @Override
  public List<InputKind> kinds(KubernetesClient client) {
    // registered in the jar too (META-INF/services), for a serialization that looks there
    InputResource.register(client, PartialReportResource.class);
    InputResource.register(client, ClusterPartialReportResource.class);
    var partials = client.resources(PartialReportResource.class).inAnyNamespace();
    var clusterPartials = client.resources(ClusterPartialReportResource.class);
    return List.of(
        InputKind.of("partialreports", partials::list, partials),
        InputKind.of("clusterpartialreports", clusterPartials::list, clusterPartials));
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

  @Override
  public String toString() {
    return name();
  }
}
