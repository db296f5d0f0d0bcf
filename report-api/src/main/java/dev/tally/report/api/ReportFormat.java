package dev.tally.report.api;

/** The two output formats Tally writes. */
public enum ReportFormat {
  /** {@code wgpolicyk8s.io/v1alpha2}: PolicyReport and ClusterPolicyReport. */
  WGPOLICY(ReportKind.POLICY_REPORT, ReportKind.CLUSTER_POLICY_REPORT),
  /** {@code openreports.io/v1alpha1}: Report and ClusterReport. */
  OPENREPORTS(ReportKind.REPORT, ReportKind.CLUSTER_REPORT);

  private final ReportKind namespaced;
  private final ReportKind clusterScoped;

  ReportFormat(ReportKind namespaced, ReportKind clusterScoped) {
    this.namespaced = namespaced;
    this.clusterScoped = clusterScoped;
  }

  /** The kind for a group in {@code namespace}; the cluster-scoped kind when it is empty. */
  public ReportKind kindFor(String namespace) {
    return namespace.isEmpty() ? clusterScoped : namespaced;
  }
}
