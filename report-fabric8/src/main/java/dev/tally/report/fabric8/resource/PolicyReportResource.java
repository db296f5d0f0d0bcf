package dev.tally.report.fabric8.resource;

import dev.tally.report.api.ReportKind;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** {@code wgpolicyk8s.io/v1alpha2} PolicyReport (namespaced). */
@Group("wgpolicyk8s.io")
@Version("v1alpha2")
@Kind("PolicyReport")
@Plural("policyreports")
public class PolicyReportResource extends AggregateResource implements Namespaced {
  @Override
  public ReportKind reportKind() {
    return ReportKind.POLICY_REPORT;
  }
}
