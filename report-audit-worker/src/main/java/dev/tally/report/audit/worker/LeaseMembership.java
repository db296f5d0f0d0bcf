package dev.tally.report.audit.worker;

import dev.tally.report.api.WireNames;
import dev.tally.report.audit.AuditMembers;
import dev.tally.report.fabric8.internal.ApiCalls;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who is in the audit group: one {@code coordination.k8s.io/v1} Lease per member, labelled with the
 * group. A member renews its own Lease; it is live while {@code renewTime + leaseDurationSeconds}
 * is after now (from the injected clock); a Lease expired for longer than the orphan grace is
 * deleted by whoever sees it. Members never write each other's Leases except to delete orphans.
 */
final class LeaseMembership {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseMembership.class);

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final String namespace;
  private final String group;
  private final String member;
  private final Duration leaseDuration;
  private final Duration orphanGrace;
  private final Clock clock;

  LeaseMembership(
      KubernetesClient client,
      ApiCalls calls,
      String namespace,
      String group,
      String member,
      Duration leaseDuration,
      Duration orphanGrace,
      Clock clock) {
    this.client = client;
    this.calls = calls;
    this.namespace = namespace;
    this.group = group;
    this.member = member;
    this.leaseDuration = leaseDuration;
    this.orphanGrace = orphanGrace;
    this.clock = clock;
  }

  /** Creates or renews this member's Lease. A conflict is left for the next renewal. */
  void renew() {
    String name = AuditNames.lease(group, member);
    ZonedDateTime now = ZonedDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
    Lease existing =
        calls.call(
            "get lease " + name, () -> client.leases().inNamespace(namespace).withName(name).get());
    try {
      if (existing == null) {
        Lease lease =
            new LeaseBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(AuditNames.memberLabels(group, member))
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(member)
                .withLeaseDurationSeconds((int) leaseDuration.toSeconds())
                .withAcquireTime(now)
                .withRenewTime(now)
                .endSpec()
                .build();
        calls.call("create lease " + name, () -> client.resource(lease).create());
        LOG.info("audit member {} joined group {}", member, group);
      } else {
        existing.getSpec().setRenewTime(now);
        existing.getSpec().setLeaseDurationSeconds((int) leaseDuration.toSeconds());
        calls.call("renew lease " + name, () -> client.resource(existing).update());
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      LOG.debug("lease {} changed meanwhile; renewing next time", name);
    }
  }

  /**
   * The members whose Lease is live now, sorted; deletes Leases that expired more than the orphan
   * grace ago on the way (one LIST does both).
   */
  List<String> live() {
    Instant now = clock.instant();
    List<Lease> leases =
        calls.call(
            "list leases",
            () ->
                client
                    .leases()
                    .inNamespace(namespace)
                    .withLabel(WireNames.AUDIT_GROUP_LABEL, group)
                    .list()
                    .getItems());
    TreeSet<String> live = new TreeSet<>();
    List<Lease> orphans = new ArrayList<>();
    for (Lease lease : leases) {
      var spec = lease.getSpec();
      if (spec == null || spec.getHolderIdentity() == null || spec.getRenewTime() == null) {
        continue;
      }
      int seconds = spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds();
      switch (AuditMembers.leaseState(
          spec.getRenewTime().toInstant(), Duration.ofSeconds(seconds), orphanGrace, now)) {
        case LIVE -> live.add(spec.getHolderIdentity());
        case ORPHAN -> orphans.add(lease);
        case EXPIRED -> {}
      }
    }
    for (Lease orphan : orphans) {
      deleteOrphan(orphan);
    }
    return List.copyOf(live);
  }

  /** Leaves the group: deletes this member's Lease so the others need not wait for it to expire. */
  void leave() {
    String name = AuditNames.lease(group, member);
    calls.run(
        "delete lease " + name,
        () -> client.leases().inNamespace(namespace).withName(name).delete());
  }

  private void deleteOrphan(Lease lease) {
    String name = lease.getMetadata().getName();
    try {
      calls.run(
          "delete orphan lease " + name,
          () ->
              client
                  .leases()
                  .inNamespace(namespace)
                  .withName(name)
                  .lockResourceVersion(lease.getMetadata().getResourceVersion())
                  .delete());
      LOG.info("removed the expired lease of audit member {}", lease.getSpec().getHolderIdentity());
    } catch (KubernetesClientException e) {
      if (!ApiCalls.changedMeanwhile(e)) {
        throw e;
      }
      // renewed or removed meanwhile: nothing to do
    }
  }
}
