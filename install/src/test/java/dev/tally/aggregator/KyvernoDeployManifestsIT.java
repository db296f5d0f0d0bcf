package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.testenv.Await;
import dev.tally.testenv.Helm;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chart beside Kyverno on the real API server: the CRDs of Kyverno's intermediate reports and
 * of both report formats are installed from report-fabric8's test resources, deploy/kyverno/ (the
 * chart rendered with values-kyverno.yaml) is applied with server-side apply, {@code
 * fieldValidation=Strict} and {@code dryRun=All}, the chart is installed by real Helm with those
 * values into a stand-in for Kyverno's namespace {@code kyverno}, and then the server's authorizer
 * is asked, with SubjectAccessReviews, what the ServiceAccount may do: each thing the aggregator
 * needs, and none of what it does not. A few of the allowed and refused requests are also made for
 * real, with a token of that ServiceAccount.
 */
@ExtendWith(RealKubernetes.class)
class KyvernoDeployManifestsIT {
  private static final String NS = "kyverno";
  private static final String ACCOUNT = "tally-kyverno-aggregator";
  private static final String LEASE = "tally-kyverno-aggregator";

  private static final List<String> CRD_FILES =
      List.of(
          "reports.kyverno.io_ephemeralreports.v1.yaml",
          "reports.kyverno.io_clusterephemeralreports.v1.yaml",
          "wgpolicyk8s.io_policyreports.v1alpha2.yaml",
          "wgpolicyk8s.io_clusterpolicyreports.v1alpha2.yaml",
          "openreports.io_reports.v1alpha1.yaml",
          "openreports.io_clusterreports.v1alpha1.yaml");

  static Path kyvernoDir() {
    return ChartFilesTest.deployDir().resolve("kyverno");
  }

  @Test
  void theManifestsAreCreatedAndGrantTheAggregatorExactlyWhatItNeeds(RealKubernetes.Cluster cluster)
      throws Exception {
    KubernetesClient admin = cluster.admin();
    String team = cluster.namespace(); // where "the resources reports are about" live
    installCrds(admin);
    // an earlier run's namespace may still be terminating
    Await.until(
        "no namespace " + NS + " is terminating",
        () -> {
          var existing = admin.namespaces().withName(NS).get();
          return existing == null || existing.getMetadata().getDeletionTimestamp() == null;
        },
        Duration.ofSeconds(120));
    boolean createdNamespace = false;
    if (admin.namespaces().withName(NS).get() == null) {
      // Kyverno's namespace, which its chart creates; deploy/kyverno/ must not hold it (a
      // "kubectl delete -f" of the folder would delete Kyverno)
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .create();
      createdNamespace = true;
    }
    List<GenericKubernetesResource> manifests = manifests();
    assertThat(manifests)
        .extracting(m -> m.getKind() + "/" + m.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "ClusterRole/tally-kyverno-aggregator",
            "ClusterRole/tally-kyverno-aggregator-lease",
            "ServiceAccount/tally-kyverno-aggregator",
            "ClusterRoleBinding/tally-kyverno-aggregator",
            "RoleBinding/tally-kyverno-aggregator-lease",
            "Service/tally-kyverno-aggregator",
            "PodDisruptionBudget/tally-kyverno-aggregator",
            "Deployment/tally-kyverno-aggregator");
    Helm helm = ChartIT.helm().against(cluster.env().kubeconfig());
    try {
      // deploy/kyverno/ (the chart rendered) as kubectl applies it, strictly, without keeping it
      for (GenericKubernetesResource m : manifests) {
        assertThat(m.getMetadata().getNamespace())
            .as("%s is in Kyverno's namespace or none", m.getKind())
            .isIn(null, NS);
        HttpResponse<String> response = DeployManifestsIT.apply(admin, m, true);
        assertThat(response.code())
            .as("%s %s: %s", m.getKind(), m.getMetadata().getName(), response.body())
            .isIn(200, 201);
      }
      // and the chart as a cluster admin installs it, which is what the checks below ask about
      helm.ok(
          ChartIT.ROOT,
          "install",
          ACCOUNT,
          "charts/tally-aggregator",
          "--namespace",
          NS,
          "--skip-crds",
          "-f",
          "charts/tally-aggregator/values-kyverno.yaml");
      for (GenericKubernetesResource m : manifests) {
        var kind = admin.genericKubernetesResources(m.getApiVersion(), m.getKind());
        String ns = m.getMetadata().getNamespace();
        var resource =
            ns == null
                ? kind.withName(m.getMetadata().getName())
                : kind.inNamespace(ns).withName(m.getMetadata().getName());
        assertThat(resource.get())
            .as("%s %s was installed", m.getKind(), m.getMetadata().getName())
            .isNotNull();
      }
      checkDeployment(admin);
      checkRules(admin, team);
      checkRealRequests(cluster, team);
    } finally {
      var uninstall = helm.run(ChartIT.ROOT, "uninstall", ACCOUNT, "--namespace", NS);
      if (createdNamespace) {
        admin.namespaces().withName(NS).delete();
      }
      assertThat(uninstall.ok()).as("helm uninstall: %s", uninstall.err()).isTrue();
    }
  }

  /** The Helm values for Kyverno's chart turn off its aggregation, and nothing else. */
  @Test
  void theHelmValuesTurnOffOnlyKyvernosAggregation() throws IOException {
    Map<?, ?> values =
        Serialization.unmarshal(
            Files.readString(kyvernoDir().resolve("kyverno-side/helm-values.yaml")), Map.class);
    assertThat(values)
        .isEqualTo(Map.of("features", Map.of("aggregateReports", Map.of("enabled", false))));
  }

  private static void checkDeployment(KubernetesClient admin) {
    var deployment = admin.apps().deployments().inNamespace(NS).withName(ACCOUNT).get();
    var pod = deployment.getSpec().getTemplate().getSpec();
    assertThat(pod.getServiceAccountName()).isEqualTo(ACCOUNT);
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    var container = pod.getContainers().get(0);
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    List<String> args = container.getArgs();
    assertThat(args)
        .contains(
            "--input=kyverno",
            "--intermediate-reports=delete",
            "--adoption-grace=2m",
            "--lease-name=" + LEASE)
        .noneMatch(a -> a.startsWith("--lease-namespace")) // the pod's, where the RoleBinding is
        .noneMatch(a -> a.startsWith("--grouping")); // Kyverno's layout comes with --input kyverno
    Options options = Options.parse(args.toArray(String[]::new));
    assertThat(options.kyverno).isNotNull();
    assertThat(options.grouping.layout()).isEqualTo(dev.tally.report.api.ReportLayout.KYVERNO);
    assertThat(options.leaseName).isEqualTo(LEASE);
    assertThat(options.httpPort).isEqualTo(container.getPorts().get(0).getContainerPort());

    // the Lease the aggregator uses is the one its role lets it renew
    var leaseRole = admin.rbac().clusterRoles().withName("tally-kyverno-aggregator-lease").get();
    assertThat(leaseRole.getRules())
        .filteredOn(r -> !r.getResourceNames().isEmpty())
        .flatExtracting(PolicyRule::getResourceNames)
        .containsExactly(options.leaseName);
  }

  /** What the ServiceAccount may do, asked of the server's authorizer. */
  private static void checkRules(KubernetesClient admin, String team) {
    List<String> wrong = new ArrayList<>();
    // Kyverno's intermediate reports: read (informers), adopt (a merge patch of the owner
    // reference), delete; never create, never get or update (nothing reads or replaces them)
    for (String verb : List.of("list", "watch", "patch", "delete")) {
      expect(admin, wrong, true, verb, "reports.kyverno.io", "ephemeralreports", team, null);
      expect(admin, wrong, true, verb, "reports.kyverno.io", "clusterephemeralreports", null, null);
    }
    for (String verb : List.of("get", "update")) {
      expect(admin, wrong, false, verb, "reports.kyverno.io", "ephemeralreports", team, null);
      expect(
          admin, wrong, false, verb, "reports.kyverno.io", "clusterephemeralreports", null, null);
    }
    expect(admin, wrong, true, "list", "reports.kyverno.io", "ephemeralreports", null, null);
    for (String verb : List.of("list", "watch")) {
      expect(admin, wrong, true, verb, "kyverno.io", "clusterpolicies", null, null);
      expect(admin, wrong, true, verb, "kyverno.io", "policies", team, null);
      expect(admin, wrong, true, verb, "policies.kyverno.io", "validatingpolicies", null, null);
    }
    expect(admin, wrong, false, "get", "kyverno.io", "clusterpolicies", null, "p");
    expect(admin, wrong, false, "list", "policies.kyverno.io", "policyexceptions", null, null);
    expect(admin, wrong, false, "update", "kyverno.io", "clusterpolicies", null, null);
    expect(admin, wrong, true, "watch", "reports.kyverno.io", "ephemeralreports", null, null);
    expect(admin, wrong, false, "create", "reports.kyverno.io", "ephemeralreports", team, null);
    expect(
        admin, wrong, false, "create", "reports.kyverno.io", "clusterephemeralreports", null, null);
    expect(
        admin,
        wrong,
        false,
        "deletecollection",
        "reports.kyverno.io",
        "ephemeralreports",
        team,
        null);
    // the reports, in both formats
    for (String verb : List.of("get", "list", "create", "update", "patch", "delete")) {
      expect(admin, wrong, true, verb, "wgpolicyk8s.io", "policyreports", team, null);
      expect(admin, wrong, true, verb, "wgpolicyk8s.io", "clusterpolicyreports", null, null);
      expect(admin, wrong, true, verb, "openreports.io", "reports", team, null);
      expect(admin, wrong, true, verb, "openreports.io", "clusterreports", null, null);
    }
    expect(admin, wrong, false, "deletecollection", "wgpolicyk8s.io", "policyreports", team, null);
    // events: created, in the core group only
    expect(admin, wrong, true, "create", "", "events", team, null);
    for (String verb : List.of("patch", "delete", "list")) {
      expect(admin, wrong, false, verb, "", "events", team, null);
    }
    expect(admin, wrong, false, "create", "events.k8s.io", "events", team, null);
    // the Lease: create in its namespace, renew only its own; nothing elsewhere
    expect(admin, wrong, true, "create", "coordination.k8s.io", "leases", NS, null);
    for (String verb : List.of("get", "update", "patch")) {
      expect(admin, wrong, true, verb, "coordination.k8s.io", "leases", NS, LEASE);
    }
    expect(admin, wrong, false, "delete", "coordination.k8s.io", "leases", NS, LEASE);
    expect(admin, wrong, false, "list", "coordination.k8s.io", "leases", NS, null);
    expect(
        admin,
        wrong,
        false,
        "update",
        "coordination.k8s.io",
        "leases",
        NS,
        "kyverno-reports-controller");
    expect(
        admin,
        wrong,
        false,
        "patch",
        "coordination.k8s.io",
        "leases",
        NS,
        "kyverno-reports-controller");
    expect(admin, wrong, false, "create", "coordination.k8s.io", "leases", "kube-system", null);
    expect(
        admin,
        wrong,
        false,
        "update",
        "coordination.k8s.io",
        "leases",
        "kube-system",
        "kube-controller-manager");
    expect(admin, wrong, false, "create", "coordination.k8s.io", "leases", team, null);
    // adoption: get, by name, the adoption kinds only; never list, watch or write them, never a
    // Secret, a subresource or a kind outside the list
    expect(admin, wrong, true, "get", "", "pods", team, "web-0");
    expect(admin, wrong, true, "get", "apps", "deployments", team, "web");
    expect(admin, wrong, true, "get", "", "namespaces", null, team);
    expect(admin, wrong, false, "get", "example.com", "widgets", team, "w");
    for (String verb : List.of("list", "watch", "create", "update", "patch", "delete")) {
      expect(admin, wrong, false, verb, "", "pods", team, null);
    }
    expect(admin, wrong, false, "get", "", "secrets", team, "db");
    expect(admin, wrong, false, "list", "", "secrets", team, null);
    expect(admin, wrong, false, "get", "", "nodes/proxy", null, "node-1");
    expect(admin, wrong, false, "create", "", "nodes/proxy", null, "node-1");
    expect(admin, wrong, false, "create", "", "pods/exec", team, "web-0");
    expect(admin, wrong, false, "get", "", "pods/log", team, "web-0");
    expect(admin, wrong, false, "list", "apps", "deployments", null, null);
    expect(admin, wrong, false, "delete", "", "namespaces", null, team);
    // Tally's own intermediate reports are not this aggregator's
    for (String verb : List.of("list", "watch", "create", "update", "delete")) {
      expect(admin, wrong, false, verb, "tally.dev", "partialreports", team, null);
      expect(admin, wrong, false, verb, "tally.dev", "clusterpartialreports", null, null);
    }
    // no way to more rights
    expect(
        admin,
        wrong,
        false,
        "create",
        "rbac.authorization.k8s.io",
        "clusterrolebindings",
        null,
        null);
    expect(
        admin, wrong, false, "escalate", "rbac.authorization.k8s.io", "clusterroles", null, null);
    expect(admin, wrong, false, "bind", "rbac.authorization.k8s.io", "clusterroles", null, null);
    expect(admin, wrong, false, "impersonate", "", "users", null, null);
    expect(admin, wrong, false, "impersonate", "", "serviceaccounts", NS, null);
    expect(admin, wrong, false, "create", "", "serviceaccounts/token", NS, ACCOUNT);
    assertThat(wrong).as("the authorizer's answers that differ from what is expected").isEmpty();
  }

  private static void expect(
      KubernetesClient admin,
      List<String> wrong,
      boolean allowed,
      String verb,
      String group,
      String resource,
      @Nullable String namespace,
      @Nullable String name) {
    wrong.addAll(
        new AccessReview(admin, NS, ACCOUNT)
            .expect(allowed, verb, group, resource, namespace, name)
            .wrong());
  }

  /** The same rules in effect: requests made with a token of the deployed ServiceAccount. */
  private static void checkRealRequests(RealKubernetes.Cluster cluster, String team)
      throws Exception {
    KubernetesClient admin = cluster.admin();
    String token =
        admin
            .serviceAccounts()
            .inNamespace(NS)
            .withName(ACCOUNT)
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    try (KubernetesClient aggregator = cluster.env().clientWithToken(token)) {
      Pod pod = AggregatorJarIT.pod(admin, team, "web-0");
      // an admission report as Kyverno's admission controller writes it: no owner yet
      GenericKubernetesResource report =
          admin
              .genericKubernetesResources("reports.kyverno.io/v1", "EphemeralReport")
              .inNamespace(team)
              .resource(admissionReport(team))
              .create();
      var reports =
          aggregator.genericKubernetesResources("reports.kyverno.io/v1", "EphemeralReport");
      assertThat(reports.inAnyNamespace().list().getItems())
          .extracting(r -> r.getMetadata().getName())
          .contains(report.getMetadata().getName());

      // adoption: read the resource to learn its uid, then own the report by it
      Pod read = aggregator.pods().inNamespace(team).withName("web-0").get();
      assertThat(read.getMetadata().getUid()).isEqualTo(pod.getMetadata().getUid());
      // a JSON merge patch of the owner reference, guarded by the version listed, as the
      // aggregator writes it (no get, no update)
      GenericKubernetesResource listed =
          reports.inNamespace(team).list().getItems().stream()
              .filter(r -> r.getMetadata().getName().equals(report.getMetadata().getName()))
              .findFirst()
              .orElseThrow();
      String ownerPatch =
          Serialization.asJson(
              Map.of(
                  "metadata",
                  Map.of(
                      "resourceVersion",
                      listed.getMetadata().getResourceVersion(),
                      "ownerReferences",
                      List.of(
                          new OwnerReferenceBuilder()
                              .withApiVersion("v1")
                              .withKind("Pod")
                              .withName("web-0")
                              .withUid(read.getMetadata().getUid())
                              .build()))));
      GenericKubernetesResource adopted =
          reports
              .inNamespace(team)
              .resource(listed)
              .patch(PatchContext.of(PatchType.JSON_MERGE), ownerPatch);
      assertThat(adopted.getMetadata().getOwnerReferences()).hasSize(1);
      assertForbidden(() -> reports.inNamespace(team).resource(adopted).update());
      assertThat(reports.inNamespace(team).withName(report.getMetadata().getName()).delete())
          .isNotEmpty();

      // the Lease: created and renewed in Kyverno's namespace, nowhere else
      Lease lease =
          aggregator
              .leases()
              .inNamespace(NS)
              .resource(
                  new LeaseBuilder()
                      .withNewMetadata()
                      .withName(LEASE)
                      .endMetadata()
                      .withNewSpec()
                      .withHolderIdentity("replica-a")
                      .withLeaseDurationSeconds(15)
                      .endSpec()
                      .build())
              .create();
      Lease renewed =
          aggregator
              .leases()
              .inNamespace(NS)
              .withName(LEASE)
              .edit(
                  l -> {
                    l.getSpec().setLeaseDurationSeconds(16);
                    return l;
                  });
      assertThat(renewed.getMetadata().getResourceVersion())
          .isNotEqualTo(lease.getMetadata().getResourceVersion());
      assertForbidden(
          () ->
              aggregator
                  .leases()
                  .inNamespace(team)
                  .resource(
                      new LeaseBuilder().withNewMetadata().withName(LEASE).endMetadata().build())
                  .create());
      assertForbidden(() -> aggregator.leases().inNamespace(NS).withName(LEASE).delete());
      // nothing else
      assertForbidden(() -> aggregator.pods().inNamespace(team).withName("web-0").delete());
      assertForbidden(() -> aggregator.pods().inNamespace(team).list());
      assertForbidden(
          () ->
              aggregator
                  .genericKubernetesResources("reports.kyverno.io/v1", "EphemeralReport")
                  .inNamespace(team)
                  .resource(admissionReport(team))
                  .create());
      assertThat(admin.pods().inNamespace(team).withName("web-0").get()).isNotNull();
    } finally {
      admin.leases().inNamespace(NS).withName(LEASE).delete();
    }
  }

  private static void assertForbidden(Runnable request) {
    assertThatThrownBy(request::run)
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
  }

  /** An admission EphemeralReport about Pod web-0, without an owner (it is not adopted yet). */
  private static GenericKubernetesResource admissionReport(String namespace) {
    String yaml =
        String.join(
            "\n",
            "apiVersion: reports.kyverno.io/v1",
            "kind: EphemeralReport",
            "metadata:",
            "  generateName: 6b2a7c1e-",
            "  namespace: " + namespace,
            "  labels:",
            "    app.kubernetes.io/managed-by: kyverno",
            "    audit.kyverno.io/source: admission",
            "spec:",
            "  owner: {apiVersion: v1, kind: Pod, name: web-0, uid: ''}",
            "  results:",
            "  - policy: require-labels",
            "    rule: check-team",
            "    result: fail",
            "    source: kyverno",
            "    message: label 'team' is required",
            "");
    return Serialization.unmarshal(yaml, GenericKubernetesResource.class);
  }

  /** The CRDs from report-fabric8's test resources, applied and served. */
  private static void installCrds(KubernetesClient admin) throws Exception {
    Path crds =
        ChartFilesTest.deployDir().getParent().resolve("report-fabric8/src/test/resources/crds");
    for (String file : CRD_FILES) {
      GenericKubernetesResource crd =
          Serialization.unmarshal(
              Files.readString(crds.resolve(file)), GenericKubernetesResource.class);
      HttpResponse<String> response = apply(admin, crd);
      assertThat(response.code()).as("%s: %s", file, response.body()).isIn(200, 201);
    }
    Await.until(
        "the report kinds are served",
        () -> {
          try {
            admin
                .genericKubernetesResources("reports.kyverno.io/v1", "EphemeralReport")
                .inAnyNamespace()
                .list();
            admin
                .genericKubernetesResources("reports.kyverno.io/v1", "ClusterEphemeralReport")
                .list();
            admin
                .genericKubernetesResources("wgpolicyk8s.io/v1alpha2", "PolicyReport")
                .inAnyNamespace()
                .list();
            return true;
          } catch (KubernetesClientException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }

  /** The Kubernetes manifests of deploy/kyverno/ (its top level; kyverno-side/ is Helm's). */
  static List<GenericKubernetesResource> manifests() throws IOException {
    List<GenericKubernetesResource> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(kyvernoDir())) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        for (String doc : Files.readString(file).split("(?m)^---\\s*$")) {
          if (doc.lines().anyMatch(l -> l.startsWith("kind:"))) {
            try (InputStream in = new ByteArrayInputStream(doc.getBytes(StandardCharsets.UTF_8))) {
              out.add(Serialization.unmarshal(in, GenericKubernetesResource.class));
            }
          }
        }
      }
    }
    return out;
  }

  /** Server-side apply of {@code m}, as {@code kubectl apply --server-side --validate=strict}. */
  private static HttpResponse<String> apply(KubernetesClient admin, GenericKubernetesResource m)
      throws Exception {
    return DeployManifestsIT.apply(admin, m, false);
  }
}
