package dev.tally.report.fabric8.resource;

import dev.tally.report.api.ReportKind;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** {@code wgpolicyk8s.io/v1alpha2} ClusterPolicyReport (cluster-scoped). */
@Group("wgpolicyk8s.io")
@Version("v1alpha2")
@Kind("ClusterPolicyReport")
@Plural("clusterpolicyreports")
public class ClusterPolicyReportResource extends AggregateResource {
  @Override
  public ReportKind reportKind() {
    return ReportKind.CLUSTER_POLICY_REPORT;
  }
}
