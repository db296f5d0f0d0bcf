package dev.tally.report.api;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An aggregate kind: its API group, version, kind, plural and scope. The four kinds of the two
 * built-in formats are constants here; a new {@link ReportFormat} makes its own. Kinds order in the
 * order they were made (the built-in ones first, as listed), which is the order of {@link
 * ReportRef}s in every sorted output.
 */
public final class ReportKind implements Comparable<ReportKind> {
  private static final AtomicInteger MADE = new AtomicInteger();

  /** The order of each kind made, by group, version and kind: equal kinds share one. */
  private static final Map<String, Integer> ORDERS = new ConcurrentHashMap<>();

  public static final ReportKind POLICY_REPORT =
      new ReportKind("wgpolicyk8s.io", "v1alpha2", "PolicyReport", "policyreports", true);
  public static final ReportKind CLUSTER_POLICY_REPORT =
      new ReportKind(
          "wgpolicyk8s.io", "v1alpha2", "ClusterPolicyReport", "clusterpolicyreports", false);
  public static final ReportKind REPORT =
      new ReportKind("openreports.io", "v1alpha1", "Report", "reports", true);
  public static final ReportKind CLUSTER_REPORT =
      new ReportKind("openreports.io", "v1alpha1", "ClusterReport", "clusterreports", false);

  private final String group;
  private final String version;
  private final String kind;
  private final String plural;
  private final boolean namespaced;
  private final int order;

  /**
   * A kind of a report format's CRDs.
   *
   * @param group its API group, such as {@code wgpolicyk8s.io}
   * @param version its version, such as {@code v1alpha2}
   * @param kind its {@code kind}, such as {@code PolicyReport}
   * @param plural its plural, such as {@code policyreports}
   * @param namespaced whether its objects live in a namespace
   */
  public ReportKind(String group, String version, String kind, String plural, boolean namespaced) {
    this.group = Checks.nonNull("group", group);
    this.version = Checks.nonNull("version", version);
    this.kind = Checks.nonNull("kind", kind);
    this.plural = Checks.nonNull("plural", plural);
    this.namespaced = namespaced;
    this.order =
        ORDERS.computeIfAbsent(group + "/" + version + "/" + kind, k -> MADE.getAndIncrement());
  }

  /** The four kinds of the built-in formats, in their order. */
  public static ReportKind[] values() {
    return new ReportKind[] {POLICY_REPORT, CLUSTER_POLICY_REPORT, REPORT, CLUSTER_REPORT};
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

  @Override
  public int compareTo(ReportKind o) {
    return Integer.compare(order, o.order);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ReportKind k
        && group.equals(k.group)
        && version.equals(k.version)
        && kind.equals(k.kind);
  }

  @Override
  public int hashCode() {
    return Objects.hash(group, version, kind);
  }

  @Override
  public String toString() {
    return kind;
  }
}
