package dev.tally.report.fabric8;

import static dev.tally.report.fabric8.RealServer.controllerOn;
import static dev.tally.report.fabric8.RealServer.fail;
import static dev.tally.report.fabric8.RealServer.installCrds;
import static dev.tally.report.fabric8.RealServer.installRbac;
import static dev.tally.report.fabric8.RealServer.partials;
import static dev.tally.report.fabric8.RealServer.publishFailure;
import static dev.tally.report.fabric8.RealServer.results;
import static dev.tally.report.fabric8.RealServer.subject;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.producer.AdoptionOutcome;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Lifecycles the mock server can only imitate, on a real API server: owner adoption that the real
 * garbage collector then honours, an aggregator that dies and a successor that sweeps the orphans
 * it left, objects Tally does not own, and a Lease the account may not touch.
 */
@ExtendWith(RealKubernetes.class)
class RealServerLifecycleTest {

  /**
   * An admission report written before its Pod existed has no owner; once the Pod exists it is
   * adopted (the real server accepts the ownerReference), one whose Pod never appears is removed
   * after the grace period, and deleting the Pod then makes the real garbage collector remove the
   * adopted report, which the aggregator retracts.
   */
  @Test
  void aReportWrittenBeforeItsPodIsAdoptedAndThenCollectedWithThePod(RealKubernetes.Cluster cluster)
      throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    VirtualTime time = new VirtualTime(Instant.parse("2026-01-01T00:00:00Z"));
    Subject later = Subject.of("v1", "Pod", ns, "created-later", "");
    Subject never = Subject.of("v1", "Pod", ns, "never-created", "");
    try (PartialReportPublisher publisher =
            PartialReportPublisher.builder(admin)
                .clock(time)
                .adoptionGrace(Duration.ofMinutes(5))
                .build();
        AggregatorController controller = controllerOn(admin).build().start()) {
      for (Subject unborn : List.of(later, never)) {
        // an PartialReport, not a PartialReport: its subject has no uid yet
        publisher
            .publish(
                new PartialReport(
                    "admission",
                    unborn,
                    "",
                    java.util.Set.of(),
                    List.of(fail("disallow-latest")),
                    Timestamp.ofSeconds(1_700_000_000),
                    0))
            .get(60, TimeUnit.SECONDS);
      }
      assertThat(publisher.adoptPending()).isEqualTo(new AdoptionOutcome(0, 0, 2));

      Pod pod = MockCluster.pod(admin, ns, "created-later");
      time.advance(Duration.ofMinutes(6));
      assertThat(publisher.adoptPending()).isEqualTo(new AdoptionOutcome(1, 1, 0));
      var adopted = partials(admin, ns);
      assertThat(adopted)
          .singleElement()
          .satisfies(
              p ->
                  assertThat(p.getMetadata().getOwnerReferences())
                      .singleElement()
                      .satisfies(
                          o -> assertThat(o.getUid()).isEqualTo(pod.getMetadata().getUid())));
      Await.until("the adopted report is aggregated", () -> results(admin, ns) == 1);

      admin.pods().inNamespace(ns).withName("created-later").delete();
      Await.until(
          "the garbage collector removes the adopted report", () -> partials(admin, ns).isEmpty());
      Await.until("the aggregator retracts its result", () -> results(admin, ns) == 0);
    }
  }

  /**
   * An aggregator whose connection dies mid-stream (its client closed under it) leaves its
   * aggregate behind; the Pod it described is deleted meanwhile and the garbage collector removes
   * the Pod's partial report. A new aggregator rebuilds from what the cluster holds and deletes the
   * aggregate nobody's results support any more.
   */
  @Test
  void aSuccessorOfADeadAggregatorSweepsTheAggregatesItLeftBehind(RealKubernetes.Cluster cluster)
      throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    Subject doomed = subject(admin, ns, "doomed");
    KubernetesClient dying = cluster.env().adminClient();
    AggregatorController first = controllerOn(dying).build().start();
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build()) {
      publishFailure(publisher, "background", doomed, "require-labels");
      Await.until("the first aggregator writes", () -> results(admin, ns) == 1);
      dying.close(); // the process is gone as far as the server can tell

      admin.pods().inNamespace(ns).withName("doomed").delete();
      Await.until(
          "the garbage collector removes the pod's report", () -> partials(admin, ns).isEmpty());
      assertThat(admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems())
          .as("the orphan the dead aggregator left")
          .hasSize(1);

      try (AggregatorController successor = controllerOn(admin).build().start()) {
        Await.until(
            "the successor deletes the orphaned aggregate",
            () ->
                admin
                    .resources(PolicyReportResource.class)
                    .inNamespace(ns)
                    .list()
                    .getItems()
                    .isEmpty());
        assertThat(successor.isLeading()).isTrue();
      }
    } finally {
      first.close();
    }
  }

  /**
   * A PolicyReport that another tool wrote in the same namespace (no {@code managed-by: tally}) is
   * neither rewritten nor deleted by the aggregator, through writes and a resync.
   */
  @Test
  void aReportTallyDoesNotOwnIsLeftAlone(RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    var foreign =
        admin
            .resource(
                Serialization.unmarshal(
                    "apiVersion: wgpolicyk8s.io/v1alpha2\n"
                        + "kind: PolicyReport\n"
                        + "metadata: {name: from-another-tool, namespace: "
                        + ns
                        + ", labels: {app.kubernetes.io/managed-by: kyverno}}\n"
                        + "summary: {pass: 1}\n"
                        + "results:\n"
                        + "- {policy: other, result: pass, source: other-engine}\n",
                    GenericKubernetesResource.class))
            .create();
    Subject subject = subject(admin, ns, "mine");
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build();
        AggregatorController controller = controllerOn(admin).build().start()) {
      publishFailure(publisher, "background", subject, "require-labels");
      Await.until(
          "Tally's aggregate is written beside it",
          () ->
              admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems().size()
                  == 2);
      controller.resyncNow().get(60, TimeUnit.SECONDS);
    }
    var after =
        admin
            .genericKubernetesResources("wgpolicyk8s.io/v1alpha2", "PolicyReport")
            .inNamespace(ns)
            .withName("from-another-tool")
            .get();
    assertThat(after).as("still there").isNotNull();
    assertThat(after.getMetadata().getResourceVersion())
        .as("never written")
        .isEqualTo(foreign.getMetadata().getResourceVersion());
  }

  /**
   * An account that may not touch Leases (a producer's, bound to {@code tally-producer} only):
   * starting an elected aggregator fails at once with the server's own reason, naming the Lease.
   */
  @Test
  void startingAnElectedAggregatorWithoutLeaseRightsFailsWithTheServersReason(
      RealKubernetes.Cluster cluster) {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installRbac(admin);
    String ns = cluster.namespace();
    KubernetesClient producer = cluster.serviceAccount("producer", "tally-producer");
    AggregatorController controller =
        controllerOn(producer)
            .leaderElection(LeaderElectionSettings.of(ns, "tally-aggregator", "replica-a"))
            .build();
    try {
      assertThatThrownBy(controller::start)
          .isInstanceOf(RequestFailedException.class)
          .hasMessageContaining("lease " + ns + "/tally-aggregator")
          .hasMessageContaining("forbidden")
          .hasMessageContaining("system:serviceaccount:" + ns + ":producer");
      assertThat(controller.isLeading()).isFalse();
    } finally {
      controller.close();
    }
  }
}
