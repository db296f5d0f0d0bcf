package dev.tally.report.fabric8;

import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.PagedList;
import dev.tally.report.fabric8.kyverno.KyvernoCodec;
import dev.tally.report.merge.kyverno.IntermediateReport;
import dev.tally.report.merge.kyverno.KyvernoMapping;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;

/**
 * Kyverno's intermediate reports, {@code reports.kyverno.io/v1} {@code EphemeralReport} (in every
 * namespace) and {@code ClusterEphemeralReport}, read through {@link KyvernoCodec} and stated by
 * {@link KyvernoMapping}.
 */
final class KyvernoReportsInput implements FeedInput {
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

  @Override
  public void checkAccess(KubernetesClient client, ApiCalls calls) {
    String what = "list ephemeralreports";
    try {
      calls.call(
          what,
          () ->
              client
                  .genericKubernetesResources(EPHEMERAL)
                  .inAnyNamespace()
                  .list(new ListOptionsBuilder().withLimit(1L).build()));
    } catch (KubernetesClientException e) {
      throw new RequestFailedException(what, e);
    }
  }

  @Override
  public List<SharedIndexInformer<? extends HasMetadata>> informers(KubernetesClient client) {
    return List.of(
        client.genericKubernetesResources(EPHEMERAL).inAnyNamespace().runnableInformer(0),
        client.genericKubernetesResources(CLUSTER_EPHEMERAL).runnableInformer(0));
  }

  @Override
  public List<HasMetadata> listAll(KubernetesClient client, ApiCalls calls) {
    List<HasMetadata> listed = new ArrayList<>();
    listed.addAll(
        PagedList.all(
            calls,
            "list ephemeralreports",
            options ->
                client.genericKubernetesResources(EPHEMERAL).inAnyNamespace().list(options)));
    listed.addAll(
        PagedList.all(
            calls,
            "list clusterephemeralreports",
            options -> client.genericKubernetesResources(CLUSTER_EPHEMERAL).list(options)));
    return listed;
  }

  @Override
  public Statement decode(HasMetadata object) {
    return state(KyvernoCodec.read((GenericKubernetesResource) object));
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
