package dev.tally.report.kyverno;

import dev.tally.report.fabric8.input.InputKind;
import dev.tally.report.fabric8.input.Statement;
import dev.tally.report.fabric8.resource.InputResource;
import dev.tally.report.merge.kyverno.IntermediateReport;
import dev.tally.report.merge.kyverno.KyvernoMapping;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;

/**
 * The reading half of {@link KyvernoInput}: Kyverno's intermediate reports, {@code
 * reports.kyverno.io/v1} {@code EphemeralReport} (in every namespace) and {@code
 * ClusterEphemeralReport}, decoded by the informers as {@link KyvernoReportResource}s (results
 * straight into their wire records, once), read through {@link KyvernoCodec} and stated by {@link
 * KyvernoMapping}.
 */
final class KyvernoReports {
  private KyvernoReports() {}

  static final ResourceDefinitionContext EPHEMERAL =
      context(KyvernoCodec.EPHEMERAL_REPORT, "ephemeralreports", true);
  static final ResourceDefinitionContext CLUSTER_EPHEMERAL =
      context(KyvernoCodec.CLUSTER_EPHEMERAL_REPORT, "clusterephemeralreports", false);

  private static ResourceDefinitionContext context(String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder()
        .withGroup("reports.kyverno.io")
        .withVersion("v1")
        .withKind(kind)
        .withPlural(plural)
        .withNamespaced(namespaced)
        .build();
  }

  static List<InputKind> kinds(KubernetesClient client) {
    // typed: each watch event's results are decoded once, straight into WireResults (a kind not
    // registered would be decoded as a generic resource first)
    InputResource.register(client, EphemeralReportResource.class);
    InputResource.register(client, ClusterEphemeralReportResource.class);
    var reports = client.resources(EphemeralReportResource.class).inAnyNamespace();
    var clusterReports = client.resources(ClusterEphemeralReportResource.class);
    return List.of(
        InputKind.of("ephemeralreports", reports::list, reports),
        InputKind.of("clusterephemeralreports", clusterReports::list, clusterReports));
  }

  static Statement decode(HasMetadata object) {
    return state(KyvernoCodec.read(KyvernoCodec.typed(object)));
  }

  /** What {@code report} states. */
  static Statement state(IntermediateReport report) {
    KyvernoMapping.Outcome outcome = KyvernoMapping.map(report);
    if (outcome instanceof KyvernoMapping.Outcome.Ready ready) {
      return new Statement.Ready(ready.partial());
    }
    if (outcome instanceof KyvernoMapping.Outcome.AwaitsAdoption awaits) {
      return new Statement.AwaitsAdoption(awaits.subject());
    }
    return new Statement.Silent();
  }
}
