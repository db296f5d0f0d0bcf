package dev.tally.report.kyverno;

import static dev.tally.report.fabric8.ShippedRoles.SCENARIO_SKEW;
import static dev.tally.report.fabric8.ShippedRoles.T0;
import static dev.tally.report.fabric8.ShippedRoles.awaitRejectedEvent;
import static dev.tally.report.fabric8.ShippedRoles.bindInNamespace;
import static dev.tally.report.fabric8.ShippedRoles.deleteReport;
import static dev.tally.report.fabric8.ShippedRoles.leaderElection;
import static dev.tally.report.fabric8.ShippedRoles.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.CountingMetrics;
import dev.tally.report.fabric8.MockCluster;
import dev.tally.report.fabric8.RealServer;
import dev.tally.report.fabric8.ShippedRoles;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every rule of the Kyverno input's ClusterRoles ({@link KyvernoInput#RBAC}; deploy/ and the chart
 * hold copies) is used, and nothing beyond them is granted, on the real control plane
 * (report-fabric8's {@link ShippedRoles}, issue 19): Kyverno's aggregator runs as the
 * ServiceAccount bound to them in both lifecycles and both formats, with update and with
 * server-side apply (background reports merged and deleted after merging, admission reports
 * adopted, owned orphans deleted at the rebuild, a rejected report, admission reports naming each
 * adoption kind and a Secret), and the Secret is never asked for.
 */
@ExtendWith(RealKubernetes.class)
class KyvernoRolesTest {
  private ShippedRoles shipped;

  @Test
  void everyRuleOfKyvernosRolesIsUsedAndNothingBeyondThemIsGranted(RealKubernetes.Cluster cluster)
      throws Exception {
    shipped = new ShippedRoles(cluster);
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    RealServer.installCrds(admin);
    RealKyvernoTest.installKyvernoCrds(admin);
    installPolicyStandIns(admin);
    shipped.install(KyvernoInput.rbacYaml());
    assertThat(shipped.roleNames())
        .containsExactlyInAnyOrder("tally-kyverno-aggregator", "tally-kyverno-aggregator-lease");
    KubernetesClient kyverno = cluster.serviceAccount("kyverno", "tally-kyverno-aggregator");
    bindInNamespace(admin, ns, "kyverno", "tally-kyverno-aggregator-lease");
    shipped.bind("kyverno", "tally-kyverno-aggregator", "tally-kyverno-aggregator-lease");
    shipped.lease("kyverno", "tally-kyverno-aggregator");

    // the role's adoption kinds are the default of --adoption-kinds, no more, no less
    assertThat(
            shipped.grants("tally-kyverno-aggregator").stream()
                .filter(g -> g.verb().equals("get"))
                .filter(g -> !g.group().endsWith("wgpolicyk8s.io"))
                .filter(g -> !g.group().equals("openreports.io"))
                .map(g -> g.group().isEmpty() ? g.resource() : g.resource() + "." + g.group())
                .toList())
        .containsExactlyInAnyOrderElementsOf(KyvernoInput.DEFAULT_ADOPTION_KINDS);

    // what earlier tests left in namespaces being deleted would be written to, and refused there
    RealServer.awaitOnlyOwnPartials(admin, ns);
    Await.until(
        "the intermediate reports of earlier tests are gone",
        () ->
            admin
                    .genericKubernetesResources(KyvernoInput.EPHEMERAL)
                    .inAnyNamespace()
                    .list()
                    .getItems()
                    .isEmpty()
                && admin
                    .genericKubernetesResources(KyvernoInput.CLUSTER_EPHEMERAL)
                    .list()
                    .getItems()
                    .isEmpty(),
        Duration.ofSeconds(180));
    shipped.start();
    try {
      kyvernoAggregator(admin, ns, kyverno);
    } finally {
      uninstallPolicyStandIns(admin);
      // the kept intermediate reports would feed the next test's aggregator, which watches every
      // namespace, and have it write into this one while it terminates (this module's tests share
      // one control plane, one after the other)
      admin.genericKubernetesResources(KyvernoInput.EPHEMERAL).inNamespace(ns).delete();
      admin.genericKubernetesResources(KyvernoInput.CLUSTER_EPHEMERAL).delete();
      Await.until(
          "no intermediate report is left",
          () ->
              admin
                      .genericKubernetesResources(KyvernoInput.EPHEMERAL)
                      .inNamespace(ns)
                      .list()
                      .getItems()
                      .isEmpty()
                  && admin
                      .genericKubernetesResources(KyvernoInput.CLUSTER_EPHEMERAL)
                      .list()
                      .getItems()
                      .isEmpty(),
          Duration.ofSeconds(60));
    }
    List<ShippedRoles.Request> requests = shipped.verify();
    // the Secret an admission report named was never asked for
    assertThat(requests)
        .filteredOn(r -> r.resource().equals("secrets"))
        .filteredOn(r -> r.user().endsWith(":kyverno"))
        .isEmpty();
  }

  /**
   * Kyverno's aggregator in both lifecycles and both formats, with update and with server-side
   * apply: background reports merged (and deleted after merging), admission reports adopted (kept:
   * the owner reference written), owned orphans deleted at the rebuild, a rejected report, and
   * admission reports naming each adoption kind and a Secret.
   */
  private void kyvernoAggregator(KubernetesClient admin, String ns, KubernetesClient account)
      throws Exception {
    var namespace = admin.namespaces().withName(ns).get();
    // the policies the reports name exist (the policy watch hides the results of others)
    for (String policy : List.of("require-labels", "require-ns-owner")) {
      KyvernoPolicyWatchTest.create(admin, KyvernoPolicyWatchTest.clusterPolicy(policy));
    }
    int run = 0;
    for (boolean keep : new boolean[] {false, true}) {
      for (ReportFormat format : ReportFormat.values()) {
        run++;
        boolean ssa = keep; // kept: server-side apply; deleted after merge: update
        CountingMetrics metrics = new CountingMetrics();
        List<HasMetadata> orphans = new ArrayList<>();
        if (keep) {
          orphans.add(kyvernoLayoutReport(admin, format, ns, "orphan-" + run));
          orphans.add(kyvernoLayoutReport(admin, format, "", "orphan-" + run));
        }
        KyvernoInput input =
            (keep ? KyvernoInput.keep() : KyvernoInput.deleteAfterMerge())
                .withAdoptionRetry(Duration.ofMillis(200))
                .withAdoptionGrace(Duration.ofMinutes(10));
        var pod = MockCluster.pod(admin, ns, "k-" + run);
        try (AggregatorController controller =
            AggregatorController.builder(account)
                .aggregator(
                    () ->
                        ReportAggregator.builder()
                            .grouping(Grouping.kyvernoPerResource())
                            .format(format)
                            .build())
                .input(input)
                .flushWindow(Duration.ZERO)
                .maxClockSkew(SCENARIO_SKEW)
                .serverSideApply(ssa)
                .metrics(metrics)
                .leaderElection(leaderElection(ns, "tally-kyverno-aggregator", "kyverno-" + run))
                .build()
                .start()) {
          Await.until(
              "Kyverno run " + run + " leads and has rebuilt",
              () -> controller.isLeading() && controller.isRebuilt(),
              Duration.ofSeconds(60));
          for (HasMetadata orphan : orphans) {
            Await.until(
                "the orphan " + orphan.getMetadata().getName() + " is deleted",
                () -> admin.resource(orphan).get() == null);
          }
          // a background scan of the pod, then a later one; one of the namespace
          admin
              .resource(
                  RealKyvernoTest.backgroundReport(
                      ns,
                      pod,
                      T0 + run,
                      Map.of(
                          "require-labels",
                          List.of(
                              RealKyvernoTest.result("require-labels", "c", "fail", T0 + run)))))
              .create();
          String verb = ssa ? "apply" : "create";
          Await.until(
              "Kyverno run " + run + " wrote the pod's report",
              () -> metrics.writes.getOrDefault(verb, 0) >= 1);
          if (!keep) {
            RealKyvernoTest.awaitNoIntermediateReports(admin, ns);
          } else {
            admin
                .genericKubernetesResources(KyvernoInput.EPHEMERAL)
                .inNamespace(ns)
                .withName(pod.getMetadata().getUid() + "-b")
                .delete();
          }
          admin
              .resource(
                  RealKyvernoTest.backgroundReport(
                      ns,
                      pod,
                      T0 + run + 100,
                      Map.of(
                          "require-labels",
                          List.of(
                              RealKyvernoTest.result(
                                  "require-labels", "c", "pass", T0 + run + 100)))))
              .create();
          String again = ssa ? "apply" : "update";
          Await.until(
              "Kyverno run " + run + " rewrote the pod's report",
              () -> metrics.writes.getOrDefault(again, 0) >= (ssa ? 2 : 1));
          var clusterReport = RealKyvernoTest.clusterBackgroundReport(namespace, T0 + run);
          admin.resource(clusterReport).createOr(existing -> existing.update());
          Await.until(
              "Kyverno run " + run + " wrote the namespace's report",
              () -> read(admin, kyvernoRef(format, "", namespace.getMetadata().getUid())) != null);
          if (keep) {
            // admission reports without a uid: adopted, the owner reference written onto them
            var admission =
                RealKyvernoTest.admissionReport(
                    ns,
                    "adopt-" + run,
                    "Pod",
                    "",
                    "v1",
                    pod.getMetadata().getName(),
                    null,
                    T0 + run + 200,
                    Map.of(
                        "require-labels",
                        List.of(
                            RealKyvernoTest.result(
                                "require-labels", "c", "pass", T0 + run + 200))));
            admin.resource(admission).create();
            GenericKubernetesResource clusterAdmission = clusterAdmission(ns, "adopt-" + run);
            admin.resource(clusterAdmission).create();
            Await.until(
                "Kyverno run " + run + " adopted both admission reports",
                () -> adopted(admin, admission) && adopted(admin, clusterAdmission),
                Duration.ofSeconds(60));
            admin.resource(admission).delete();
            admin.resource(clusterAdmission).delete();
            // the namespace's last report goes: so does its per-resource report
            admin.resource(clusterReport).delete();
            Await.until(
                "Kyverno run " + run + " deleted the namespace's report",
                () ->
                    read(admin, kyvernoRef(format, "", namespace.getMetadata().getUid())) == null);
          } else {
            Await.until(
                "Kyverno run " + run + " deleted the merged cluster report",
                () -> admin.resource(clusterReport).get() == null);
            // a later scan of the namespace with another verdict: its report is updated
            int updates = metrics.writes.getOrDefault("update", 0);
            admin
                .resource(
                    RealKyvernoTest.clusterBackgroundReport(namespace, T0 + run + 100, "pass"))
                .create();
            Await.until(
                "Kyverno run " + run + " rewrote the namespace's report",
                () -> metrics.writes.getOrDefault("update", 0) > updates);
            RealKyvernoTest.awaitNoIntermediateReports(admin, ns);
          }
          if (run == 1) {
            rejectedIntermediateReport(admin, ns);
            ghosts(admin, ns, controller);
          }
        }
        // the next run starts from nothing of this one's
        admin.resource(RealKyvernoTest.clusterBackgroundReport(namespace, T0)).delete();
        for (ReportRef ref :
            List.of(
                kyvernoRef(format, ns, pod.getMetadata().getUid()),
                kyvernoRef(format, "", namespace.getMetadata().getUid()))) {
          deleteReport(admin, ref);
        }
      }
    }
  }

  // ------------------------------------------------------------------------------------ helpers

  /** Admission reports naming an object of each adoption kind (none exists) and a Secret. */
  private void ghosts(KubernetesClient admin, String ns, AggregatorController controller)
      throws Exception {
    Map<String, String[]> kinds = new TreeMap<>();
    kinds.put("pods", new String[] {"", "v1", "Pod"});
    kinds.put("services", new String[] {"", "v1", "Service"});
    kinds.put("configmaps", new String[] {"", "v1", "ConfigMap"});
    kinds.put("serviceaccounts", new String[] {"", "v1", "ServiceAccount"});
    kinds.put("persistentvolumeclaims", new String[] {"", "v1", "PersistentVolumeClaim"});
    kinds.put("replicationcontrollers", new String[] {"", "v1", "ReplicationController"});
    kinds.put("deployments", new String[] {"apps", "v1", "Deployment"});
    kinds.put("replicasets", new String[] {"apps", "v1", "ReplicaSet"});
    kinds.put("statefulsets", new String[] {"apps", "v1", "StatefulSet"});
    kinds.put("daemonsets", new String[] {"apps", "v1", "DaemonSet"});
    kinds.put("jobs", new String[] {"batch", "v1", "Job"});
    kinds.put("cronjobs", new String[] {"batch", "v1", "CronJob"});
    kinds.put("ingresses", new String[] {"networking.k8s.io", "v1", "Ingress"});
    kinds.put("networkpolicies", new String[] {"networking.k8s.io", "v1", "NetworkPolicy"});
    kinds.put("secrets", new String[] {"", "v1", "Secret"});
    List<GenericKubernetesResource> created = new ArrayList<>();
    for (var e : kinds.entrySet()) {
      String[] gvk = e.getValue();
      GenericKubernetesResource report =
          RealKyvernoTest.admissionReport(
              ns,
              "ghost-" + e.getKey(),
              gvk[2],
              gvk[0],
              gvk[1],
              "ghost",
              null,
              T0,
              Map.of(
                  "require-labels",
                  List.of(RealKyvernoTest.result("require-labels", "c", "fail", T0))));
      report
          .getMetadata()
          .getLabels()
          .put(
              KyvernoCodec.GVR_LABEL,
              e.getKey() + "." + gvk[1] + (gvk[0].isEmpty() ? "" : "." + gvk[0]));
      created.add(admin.resource(report).create());
    }
    GenericKubernetesResource namespaceGhost = clusterAdmission("ghost-" + ns, "ghost");
    created.add(admin.resource(namespaceGhost).create());
    // each is looked up (404) at the next adoption pass; the Secret never (checked by the caller)
    controller.flushNow().get(60, TimeUnit.SECONDS);
    shipped.awaitUsed(
        "kyverno",
        shipped.grants("tally-kyverno-aggregator").stream()
            .filter(g -> g.verb().equals("get"))
            .filter(g -> !Set.of("wgpolicyk8s.io", "openreports.io").contains(g.group()))
            .toList());
    for (GenericKubernetesResource r : created) {
      admin.resource(r).delete();
    }
  }

  /** A ClusterEphemeralReport of Kyverno's admission controller about a Namespace, no uid. */
  private static GenericKubernetesResource clusterAdmission(String namespaceName, String request) {
    Map<String, Object> object = new LinkedHashMap<>();
    object.put("apiVersion", "reports.kyverno.io/v1");
    object.put("kind", "ClusterEphemeralReport");
    Map<String, String> labels = new TreeMap<>();
    labels.put("app.kubernetes.io/managed-by", "kyverno");
    labels.put("audit.kyverno.io/source", "admission");
    labels.put("audit.kyverno.io/resource.group", "");
    labels.put("audit.kyverno.io/resource.version", "v1");
    labels.put("audit.kyverno.io/resource.kind", "Namespace");
    labels.put("audit.kyverno.io/resource.gvr", "namespaces.v1");
    labels.put("cpol.kyverno.io/require-ns-owner", "1");
    object.put(
        "metadata",
        Map.of(
            "name",
            (request + "-" + namespaceName).toLowerCase(Locale.ROOT),
            "labels",
            labels,
            "annotations",
            Map.of("audit.kyverno.io/resource.name", namespaceName)));
    object.put(
        "spec",
        Map.of(
            "owner", Map.of("apiVersion", "", "kind", "", "name", "", "uid", ""),
            "results",
                List.of(RealKyvernoTest.result("require-ns-owner", "check", "fail", T0 + 300))));
    return Serialization.unmarshal(Serialization.asJson(object), GenericKubernetesResource.class);
  }

  private static boolean adopted(KubernetesClient admin, GenericKubernetesResource report) {
    GenericKubernetesResource now = admin.resource(report).get();
    return now != null
        && now.getMetadata().getOwnerReferences() != null
        && !now.getMetadata().getOwnerReferences().isEmpty();
  }

  /** An intermediate report Kyverno could not have written (no kind label): an Event. */
  private static void rejectedIntermediateReport(KubernetesClient admin, String ns) {
    GenericKubernetesResource bad =
        RealKyvernoTest.admissionReport(
            ns,
            "bad",
            "Pod",
            "",
            "v1",
            "web",
            "0000-bad",
            T0,
            Map.of(
                "require-labels",
                List.of(RealKyvernoTest.result("require-labels", "c", "fail", T0))));
    bad.getMetadata().getLabels().remove("audit.kyverno.io/resource.kind");
    admin.resource(bad).create();
    awaitRejectedEvent(admin, ns, "bad-r");
    admin.resource(bad).delete();
  }

  /** The name Kyverno's layout gives the report about the resource of {@code uid}. */
  private static ReportRef kyvernoRef(ReportFormat format, String namespace, String uid) {
    var kinds =
        format == ReportFormat.WGPOLICY
            ? List.of(
                dev.tally.report.api.ReportKind.POLICY_REPORT,
                dev.tally.report.api.ReportKind.CLUSTER_POLICY_REPORT)
            : List.of(
                dev.tally.report.api.ReportKind.REPORT,
                dev.tally.report.api.ReportKind.CLUSTER_REPORT);
    return new ReportRef(namespace.isEmpty() ? kinds.get(1) : kinds.get(0), namespace, uid);
  }

  /**
   * A report in Kyverno's layout about a resource that does not exist, created as the cluster
   * admin: kept intermediate reports are the state, so the rebuild deletes it.
   */
  private static HasMetadata kyvernoLayoutReport(
      KubernetesClient admin, ReportFormat format, String ns, String name) {
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).format(format).build();
    Subject subject =
        ns.isEmpty()
            ? Subject.of("v1", "Namespace", "", name, "0000-" + name + "-c")
            : Subject.of("v1", "Pod", ns, name, "0000-" + name);
    aggregator.apply(
        PartialReport.builder()
            .producer("kyverno")
            .subject(subject)
            .results(List.of(RealServer.fail("require-labels")))
            .observedAt(Timestamp.ofSeconds(T0))
            .build());
    AggregateReport report = aggregator.aggregates().get(0);
    var resource = ReportCodec.encode(report);
    resource.getMetadata().setOwnerReferences(null); // else the garbage collector takes it
    return admin.resource(resource).create();
  }

  /** Stand-ins for Kyverno's policy CRDs: kyverno.io's two and policies.kyverno.io's eight. */
  private static List<CustomResourceDefinition> policyStandIns() {
    List<CustomResourceDefinition> crds = new ArrayList<>(KyvernoPolicyWatchTest.standInCrds());
    for (String kind :
        List.of(
            "ValidatingPolicy",
            "NamespacedValidatingPolicy",
            "ImageValidatingPolicy",
            "NamespacedImageValidatingPolicy",
            "GeneratingPolicy",
            "NamespacedGeneratingPolicy",
            "MutatingPolicy",
            "NamespacedMutatingPolicy")) {
      String plural = kind.toLowerCase(Locale.ROOT).replaceAll("y$", "ies");
      crds.add(
          KyvernoPolicyWatchTest.standInCrd(
              "policies.kyverno.io",
              kind,
              plural,
              kind.startsWith("Namespaced") ? "Namespaced" : "Cluster"));
    }
    return crds;
  }

  private static void installPolicyStandIns(KubernetesClient admin) {
    for (CustomResourceDefinition crd : policyStandIns()) {
      admin.resource(crd).createOr(existing -> existing.update());
    }
    Await.until(
        "the stand-in policy kinds are served",
        () -> {
          try {
            for (CustomResourceDefinition crd : policyStandIns()) {
              String apiVersion = crd.getSpec().getGroup() + "/v1";
              var op =
                  admin.genericKubernetesResources(apiVersion, crd.getSpec().getNames().getKind());
              if (crd.getSpec().getScope().equals("Namespaced")) {
                op.inAnyNamespace().list();
              } else {
                op.list();
              }
            }
            return true;
          } catch (KubernetesClientException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }

  /**
   * Removes the stand-ins and waits until their kinds are no longer served: a later test's
   * aggregator would otherwise watch policies that vanish under it, and hide its results.
   */
  private static void uninstallPolicyStandIns(KubernetesClient admin) {
    for (CustomResourceDefinition crd : policyStandIns()) {
      admin.resource(crd).delete();
    }
    Await.until(
        "the stand-in policy kinds are no longer served",
        () -> {
          try {
            return admin.getApiResources("kyverno.io/v1") == null
                && admin.getApiResources("policies.kyverno.io/v1") == null;
          } catch (KubernetesClientException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }
}
