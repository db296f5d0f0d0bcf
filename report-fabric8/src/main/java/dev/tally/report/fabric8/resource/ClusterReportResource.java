package dev.tally.report.fabric8.resource;

import dev.tally.report.api.ReportKind;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** {@code openreports.io/v1alpha1} ClusterReport (cluster-scoped). */
@Group("openreports.io")
@Version("v1alpha1")
@Kind("ClusterReport")
@Plural("clusterreports")
public class ClusterReportResource extends AggregateResource {
  @Override
  public ReportKind reportKind() {
    return ReportKind.CLUSTER_REPORT;
  }
}
