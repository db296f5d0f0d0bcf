package dev.tally.report.api;

/**
 * The {@code wgpolicyk8s.io} format: PolicyReport and ClusterPolicyReport at {@code v1alpha2}. No
 * fields beyond the common report. (report-files also reads {@code v1alpha1} reports, converting
 * them: its {@code WireVersion} lists the versions it reads.)
 */
public final class WgPolicyFormat extends ReportFormat {
  WgPolicyFormat() {
    super("wgpolicy", ReportKind.POLICY_REPORT, ReportKind.CLUSTER_POLICY_REPORT);
  }
}
