package dev.tally.report.demo;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Subject;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.resource.ClusterPolicyReportResource;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The demo's last chapter: the reports as {@code kubectl get polr -A} shows them, what happened to
 * the cluster, and the API requests each side made; and the reports Tally wrote, as read back from
 * the cluster (which the converging chapter compares with the aggregator's).
 *
 * <p>The summary {@link Demo} prints at the end.
 */
final class DemoSummary {
  private final PrintStream out;

  DemoSummary(PrintStream out) {
    this.out = out;
  }

  /** The reports, the pods and policies, then the requests each side made. */
  void print(
      KubernetesClient admin,
      List<Subject> pods,
      int namespaces,
      List<Subject> deleted,
      RequestCounter aggregatorRequests,
      RequestCounter producerRequests,
      Map<String, LongAdder> tallyWrites,
      long steadyWrites) {
    out.println();
    printReports(admin);
    out.println();
    out.printf(
        "%d pods in %d namespaces, %d deleted, %d policies (%s removed)%n",
        pods.size(),
        namespaces,
        deleted.size(),
        Evaluations.POLICIES.size(),
        Evaluations.REMOVED_POLICY);
    out.println();
    out.println("API requests by verb");
    printRequests("aggregator", aggregatorRequests.snapshot());
    printRequests("producers", producerRequests.snapshot());
    out.printf("%-12s %s%n", "tally writes", new TreeMap<>(snapshot(tallyWrites)));
    out.printf(
        "steady state: %d writes after the same evaluations were published again%n", steadyWrites);
  }

  /** The PolicyReports and ClusterPolicyReports Tally wrote, in the order of their refs. */
  static List<AggregateReport> observed(KubernetesClient client) {
    List<AggregateReport> out = new ArrayList<>();
    for (var r :
        client
            .resources(PolicyReportResource.class)
            .inAnyNamespace()
            .withLabel(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_VALUE)
            .list()
            .getItems()) {
      out.add(ReportCodec.decode(r));
    }
    for (var r :
        client
            .resources(ClusterPolicyReportResource.class)
            .withLabel(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_VALUE)
            .list()
            .getItems()) {
      out.add(ReportCodec.decode(r));
    }
    out.sort(Comparator.comparing(AggregateReport::ref));
    return out;
  }

  private void printReports(KubernetesClient client) {
    out.printf(
        "%-10s %-32s %-8s %5s %5s %5s %5s %5s%n",
        "NAMESPACE", "NAME", "SCOPE", "PASS", "FAIL", "WARN", "ERROR", "SKIP");
    for (AggregateReport r : observed(client)) {
      out.printf(
          "%-10s %-32s %-8s %5d %5d %5d %5d %5d%n",
          r.ref().namespace().isEmpty() ? "(cluster)" : r.ref().namespace(),
          r.ref().name(),
          r.scope().map(s -> s.kind() + "/" + s.name()).orElse("-"),
          r.summary().pass(),
          r.summary().fail(),
          r.summary().warn(),
          r.summary().error(),
          r.summary().skip());
    }
  }

  private void printRequests(String who, Map<String, Long> byVerb) {
    long total = byVerb.values().stream().mapToLong(Long::longValue).sum();
    out.printf("%-12s %5d  %s%n", who, total, byVerb);
  }

  private static Map<String, Long> snapshot(Map<String, LongAdder> counters) {
    Map<String, Long> out = new TreeMap<>();
    counters.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
