package dev.tally.report.audit.worker;

import dev.tally.report.api.WireNames;
import dev.tally.report.audit.RunId;
import dev.tally.report.audit.ShardPlan;
import dev.tally.report.audit.ShardPlanner;
import dev.tally.report.audit.WorkUnit;
import dev.tally.report.fabric8.internal.ApiCalls;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run manifest: one ConfigMap per interval holding the units (with their weights) and the
 * members the run was planned over. The first member to start the interval creates it; the others
 * get a 409 and read it. That is the only agreement the audit needs: the plan itself is recomputed
 * by every member from the manifest, and checked against the run id's digest.
 */
final class RunManifestStore {
  private static final Logger LOG = LoggerFactory.getLogger(RunManifestStore.class);

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final String namespace;
  private final String group;
  private final ShardPlanner planner;

  RunManifestStore(
      KubernetesClient client,
      ApiCalls calls,
      String namespace,
      String group,
      ShardPlanner planner) {
    this.client = client;
    this.calls = calls;
    this.namespace = namespace;
    this.group = group;
    this.planner = planner;
  }

  /**
   * The manifest of {@code epoch}; if nobody created it yet, created from {@code plan} when {@code
   * mayCreate}, else empty.
   */
  Optional<RunManifest> getOrCreate(long epoch, boolean mayCreate, Supplier<ShardPlan> plan) {
    String name = AuditNames.manifest(group, epoch);
    @Nullable ConfigMap existing = get(name);
    if (existing != null) {
      return Optional.of(decode(existing));
    }
    if (!mayCreate) {
      return Optional.empty();
    }
    ShardPlan planned = plan.get();
    RunId runId = RunId.of(epoch, planned);
    StringBuilder units = new StringBuilder();
    for (WorkUnit u : planned.units()) {
      units.append(u.id()).append(' ').append(u.weight()).append('\n');
    }
    ConfigMap manifest =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .withLabels(
                Map.of(
                    WireNames.AUDIT_GROUP_LABEL,
                    group,
                    WireNames.AUDIT_EPOCH_LABEL,
                    Long.toString(epoch),
                    WireNames.MANAGED_BY_LABEL,
                    WireNames.MANAGED_BY_VALUE))
            .endMetadata()
            .withData(
                Map.of(
                    "runId", runId.name(),
                    "members", String.join("\n", planned.members()),
                    "units", units.toString()))
            .build();
    try {
      calls.call("create manifest " + name, () -> client.resource(manifest).create());
      LOG.info(
          "run {} planned: {} units over {} members",
          runId,
          planned.units().size(),
          planned.members().size());
      return Optional.of(new RunManifest(runId, planned));
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      // another member started this interval first: its manifest is the run
      @Nullable ConfigMap winner = get(name);
      if (winner == null) {
        throw new IllegalStateException("manifest " + name + " vanished after a conflict");
      }
      return Optional.of(decode(winner));
    }
  }

  /** Deletes the manifests of intervals before {@code keepFrom}. */
  void cleanUpBefore(long keepFrom) {
    var maps =
        calls.call(
            "list manifests",
            () ->
                client
                    .configMaps()
                    .inNamespace(namespace)
                    .withLabel(WireNames.AUDIT_GROUP_LABEL, group)
                    .withLabel(WireNames.AUDIT_EPOCH_LABEL)
                    .list()
                    .getItems());
    for (ConfigMap map : maps) {
      long epoch;
      try {
        epoch = Long.parseLong(map.getMetadata().getLabels().get(WireNames.AUDIT_EPOCH_LABEL));
      } catch (NumberFormatException e) {
        continue;
      }
      if (epoch < keepFrom) {
        calls.run(
            "delete manifest " + map.getMetadata().getName(),
            () ->
                client
                    .configMaps()
                    .inNamespace(namespace)
                    .withName(map.getMetadata().getName())
                    .delete());
      }
    }
  }

  private @Nullable ConfigMap get(String name) {
    return calls.call(
        "get manifest " + name,
        () -> client.configMaps().inNamespace(namespace).withName(name).get());
  }

  private RunManifest decode(ConfigMap map) {
    Map<String, String> data = map.getData() == null ? Map.of() : map.getData();
    RunId runId = RunId.parse(data.getOrDefault("runId", ""));
    List<String> members =
        data.getOrDefault("members", "").lines().filter(l -> !l.isBlank()).toList();
    List<WorkUnit> units = new ArrayList<>();
    for (String line : data.getOrDefault("units", "").lines().toList()) {
      if (line.isBlank()) {
        continue;
      }
      String[] parts = line.split(" ");
      try {
        units.add(WorkUnit.fromId(parts[0], Long.parseLong(parts[1])));
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            "manifest " + map.getMetadata().getName() + " has a bad unit line '" + line + "'", e);
      }
    }
    ShardPlan plan = planner.plan(units, members);
    if (!plan.digest().equals(runId.planDigest())) {
      throw new IllegalStateException(
          "manifest "
              + map.getMetadata().getName()
              + " does not plan to its run id "
              + runId
              + ": members run different planner settings");
    }
    return new RunManifest(runId, plan);
  }
}
