package dev.tally.report.audit.worker;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.WireNames;
import dev.tally.report.audit.AuditBudget;
import dev.tally.report.fabric8.VirtualTime;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A generated cluster to audit, the policy evaluated on it, and how to read the outcome. */
final class AuditCluster {
  static final CoverageKey POLICY = CoverageKey.of("tally-test", "require-team-label");
  static final List<AuditTarget> TARGETS =
      List.of(
          AuditTarget.namespaced("", "v1", "ConfigMap", "configmaps"),
          AuditTarget.clusterScoped("", "v1", "Namespace", "namespaces"));

  /** How many ConfigMaps each generated namespace holds: deliberately uneven. */
  static final int[] CONFIG_MAPS = {40, 3, 25, 8, 12, 1, 30, 6};

  private AuditCluster() {}

  /** Creates the namespaces {@code app-0..} and their ConfigMaps; returns the object count. */
  static int generate(KubernetesClient client) {
    int objects = 0;
    for (int ns = 0; ns < CONFIG_MAPS.length; ns++) {
      String name = "app-" + ns;
      client
          .namespaces()
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withLabels(ns % 3 == 0 ? Map.of() : Map.of("team", "t" + ns))
                  .endMetadata()
                  .build())
          .create();
      objects++;
      for (int i = 0; i < CONFIG_MAPS[ns]; i++) {
        client
            .configMaps()
            .inNamespace(name)
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName("cm-" + i)
                    .withNamespace(name)
                    .withLabels(i % 4 == 0 ? Map.of() : Map.of("team", "t" + i))
                    .endMetadata()
                    .withData(Map.of("k", "v" + i))
                    .build())
            .create();
        objects++;
      }
    }
    return objects;
  }

  /** The policy: an object must carry a {@code team} label. */
  static List<Result> evaluate(GenericKubernetesResource object) {
    var labels = object.getMetadata().getLabels();
    boolean ok = labels != null && labels.containsKey("team");
    return List.of(
        Result.builder()
            .source(POLICY.source())
            .policy(POLICY.policy())
            .rule("team")
            .status(ok ? ResultStatus.PASS : ResultStatus.FAIL)
            .message(ok ? "has a team" : "no team label")
            .build());
  }

  /** Every audit partial report in the cluster, decoded. */
  static List<PartialReport> auditPartials(KubernetesClient client) {
    List<PartialReport> all = new ArrayList<>();
    for (var r : client.resources(PartialReportResource.class).inAnyNamespace().list().getItems()) {
      all.add(ReportCodec.decodePartial(r));
    }
    for (var r : client.resources(ClusterPartialReportResource.class).list().getItems()) {
      all.add(ReportCodec.decodePartial(r));
    }
    return all.stream().filter(e -> e.producer().startsWith("audit/")).toList();
  }

  /** The aggregates the default aggregator makes of the audit's partial reports. */
  static List<AggregateReport> aggregates(List<PartialReport> partials) {
    ReportAggregator aggregator = ReportAggregator.builder().build();
    for (PartialReport e : partials) {
      aggregator.apply(e);
    }
    return aggregator.aggregates();
  }

  /**
   * A member auditing the first target alone in virtual {@code time}: a 10 s Lease, no planning
   * delay, a group budget of 50 requests per second. Tests add what they look at.
   */
  static AuditMember.Builder soloMember(
      KubernetesClient client,
      PartialReportPublisher publisher,
      VirtualTime time,
      String group,
      String member) {
    return AuditMember.builder(client)
        .group(group)
        .member(member)
        .namespace("tally")
        .targets(List.of(TARGETS.get(0)))
        .policies(Set.of(POLICY))
        .evaluator(AuditCluster::evaluate)
        .publisher(publisher)
        .groupBudget(new AuditBudget(50, 50))
        .leaseDuration(Duration.ofSeconds(10))
        .planningDelay(Duration.ZERO)
        .clock(time)
        .nanoTicker(time::nanos)
        .sleeper(time);
  }

  static void deleteAuditState(KubernetesClient client) {
    client.resources(PartialReportResource.class).inAnyNamespace().delete();
    client.resources(ClusterPartialReportResource.class).delete();
    client.configMaps().inNamespace("tally").withLabel(WireNames.AUDIT_GROUP_LABEL).delete();
    client.leases().inNamespace("tally").withLabel(WireNames.AUDIT_GROUP_LABEL).delete();
  }
}
