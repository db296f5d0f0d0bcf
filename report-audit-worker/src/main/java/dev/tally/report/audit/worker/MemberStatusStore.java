package dev.tally.report.audit.worker;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.WireNames;
import dev.tally.report.audit.RunId;
import dev.tally.report.audit.RunLedger;
import dev.tally.report.audit.UnitStatus;
import dev.tally.report.fabric8.internal.ApiCalls;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-member status: one ConfigMap per member holding its run id and its own unit statuses. Each
 * member writes only its own map, so members never contend; anyone reads them all and joins them
 * with {@link RunLedger#merge}.
 */
final class MemberStatusStore {
  private static final Logger LOG = LoggerFactory.getLogger(MemberStatusStore.class);
  static final String RUN_KEY = "run";
  private static final int MAX_CONFLICTS = 4;

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final String namespace;
  private final String group;

  MemberStatusStore(KubernetesClient client, ApiCalls calls, String namespace, String group) {
    this.client = client;
    this.calls = calls;
    this.namespace = namespace;
    this.group = group;
  }

  /** Replaces this member's map with its statuses in {@code mine}. */
  void write(String member, RunLedger mine) {
    String name = AuditNames.status(group, member);
    Map<String, String> data = new TreeMap<>();
    data.put(RUN_KEY, mine.runId().name());
    mine.statuses().forEach((unit, status) -> data.put(unit, status.encode()));
    for (int attempt = 1; ; attempt++) {
      ConfigMap existing =
          calls.call(
              "get status " + name,
              () -> client.configMaps().inNamespace(namespace).withName(name).get());
      ConfigMap desired =
          new ConfigMapBuilder()
              .withNewMetadata()
              .withName(name)
              .withNamespace(namespace)
              .withLabels(AuditNames.memberLabels(group, member))
              .endMetadata()
              .withData(data)
              .build();
      try {
        if (existing == null) {
          calls.call("create status " + name, () -> client.resource(desired).create());
        } else {
          desired.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
          calls.call("update status " + name, () -> client.resource(desired).update());
        }
        return;
      } catch (KubernetesClientException e) {
        if (!ApiCalls.changedMeanwhile(e) || attempt >= MAX_CONFLICTS) {
          throw e;
        }
      }
    }
  }

  /** The join of every member's statuses for {@code run}; maps of other runs are ignored. */
  RunLedger read(RunId run) {
    var maps = listStatuses();
    RunLedger ledger = RunLedger.empty(run);
    for (ConfigMap map : maps) {
      Map<String, String> data = map.getData() == null ? Map.of() : map.getData();
      if (!run.name().equals(data.get(RUN_KEY))) {
        continue;
      }
      for (var e : data.entrySet()) {
        if (e.getKey().equals(RUN_KEY)) {
          continue;
        }
        try {
          ledger = ledger.with(e.getKey(), UnitStatus.decode(e.getValue()));
        } catch (InvalidReportException bad) {
          LOG.warn(
              "ignoring status {} in {}: {}",
              e.getKey(),
              map.getMetadata().getName(),
              bad.getMessage());
        }
      }
    }
    return ledger;
  }

  /**
   * Deletes the maps of members not in {@code keep} that belong to another run than {@code run}.
   */
  void cleanUp(RunId run, Set<String> keep) {
    var maps = listStatuses();
    for (ConfigMap map : maps) {
      String member = map.getMetadata().getLabels().get(WireNames.AUDIT_MEMBER_LABEL);
      Map<String, String> data = map.getData() == null ? Map.of() : map.getData();
      if (!keep.contains(member) && !run.name().equals(data.get(RUN_KEY))) {
        calls.run(
            "delete status " + map.getMetadata().getName(),
            () ->
                client
                    .configMaps()
                    .inNamespace(namespace)
                    .withName(map.getMetadata().getName())
                    .lockResourceVersion(map.getMetadata().getResourceVersion())
                    .delete());
      }
    }
  }

  /** Every member's status map of this group. */
  private List<ConfigMap> listStatuses() {
    return calls.call(
        "list statuses",
        () ->
            client
                .configMaps()
                .inNamespace(namespace)
                .withLabel(WireNames.AUDIT_GROUP_LABEL, group)
                .withLabel(WireNames.AUDIT_MEMBER_LABEL)
                .list()
                .getItems());
  }
}
