package dev.tally.report.kyverno;

import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Kyverno's cluster-scoped {@code reports.kyverno.io/v1} ClusterEphemeralReport, as Tally reads it.
 */
@Group("reports.kyverno.io")
@Version("v1")
@Kind(KyvernoCodec.CLUSTER_EPHEMERAL_REPORT)
@Plural("clusterephemeralreports")
public final class ClusterEphemeralReportResource extends KyvernoReportResource {
  @Override
  public KyvernoReportResource newOfSameKind() {
    return new ClusterEphemeralReportResource();
  }
}
