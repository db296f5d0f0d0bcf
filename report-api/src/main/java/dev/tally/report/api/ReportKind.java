package dev.tally.report.api;

/** The four aggregate kinds, with their API group, version and scope. */
public enum ReportKind {
  POLICY_REPORT("wgpolicyk8s.io", "v1alpha2", "PolicyReport", "policyreports", true),
  CLUSTER_POLICY_REPORT(
      "wgpolicyk8s.io", "v1alpha2", "ClusterPolicyReport", "clusterpolicyreports", false),
  REPORT("openreports.io", "v1alpha1", "Report", "reports", true),
  CLUSTER_REPORT("openreports.io", "v1alpha1", "ClusterReport", "clusterreports", false);

  private final String group;
  private final String version;
  private final String kind;
  private final String plural;
  private final boolean namespaced;

  ReportKind(String group, String version, String kind, String plural, boolean namespaced) {
    this.group = group;
    this.version = version;
    this.kind = kind;
    this.plural = plural;
    this.namespaced = namespaced;
  }

  public String group() {
    return group;
  }

  public String version() {
    return version;
  }

  public String apiVersion() {
    return group + "/" + version;
  }

  /** The {@code kind} on the wire, such as {@code PolicyReport}. */
  public String kind() {
    return kind;
  }

  public String plural() {
    return plural;
  }

  public boolean namespaced() {
    return namespaced;
  }

  /** Whether this kind has the openreports {@code configuration} and {@code source} fields. */
  public boolean openReports() {
    return this == REPORT || this == CLUSTER_REPORT;
  }
}
