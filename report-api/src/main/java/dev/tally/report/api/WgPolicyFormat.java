package dev.tally.report.api;

import java.util.List;

/**
 * The {@code wgpolicyk8s.io} format: PolicyReport and ClusterPolicyReport at {@code v1alpha2}. A
 * reader also accepts {@code v1alpha1}, which it converts. No fields beyond the common report.
 */
public final class WgPolicyFormat extends ReportFormat {
  WgPolicyFormat() {
    super("wgpolicy", ReportKind.POLICY_REPORT, ReportKind.CLUSTER_POLICY_REPORT);
  }

  @Override
  public List<String> readableVersions() {
    return List.of("v1alpha2", "v1alpha1");
  }
}
