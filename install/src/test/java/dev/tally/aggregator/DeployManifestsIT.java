package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every manifest in deploy/ (the chart rendered with its default values, ChartIT) applied to the
 * real API server, which validates it against the built-in schemas and the CRDs with {@code
 * fieldValidation=Strict} (an unknown or misspelt field is refused, not dropped). The service
 * account, the bindings, the Service and the Deployment are really created, in the namespace {@code
 * tally-system} the test creates first (no kubelet runs, so no pod starts) and removed afterwards;
 * the CRDs and the ClusterRoles, which the control plane of this JVM already uses, are applied with
 * {@code dryRun=All}.
 */
@ExtendWith(RealKubernetes.class)
class DeployManifestsIT {
  /** Shared with the rest of the control plane: validated, not changed. */
  private static final Set<String> DRY_RUN = Set.of("CustomResourceDefinition", "ClusterRole");

  @Test
  void everyManifestInDeployIsAcceptedByTheServer(RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    List<GenericKubernetesResource> manifests = manifests();
    assertThat(manifests)
        .extracting(GenericKubernetesResource::getKind)
        .containsExactlyInAnyOrder(
            "CustomResourceDefinition",
            "CustomResourceDefinition",
            "ClusterRole", // tally-aggregator
            "ClusterRole", // tally-aggregator-lease
            "ClusterRole", // tally-producer
            "ClusterRole", // tally-audit-member
            "ClusterRole", // tally-audit-coordination
            "ServiceAccount",
            "ClusterRoleBinding",
            "RoleBinding", // the Lease's, in tally-system only
            "Service", // /metrics
            "PodDisruptionBudget", // one of the two replicas down at a time
            "Deployment");
    // the namespace is the user's to create (kubectl create namespace, or helm --create-namespace)
    admin
        .namespaces()
        .resource(
            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata()
                .withName("tally-system")
                .endMetadata()
                .build())
        .serverSideApply();
    try {
      for (GenericKubernetesResource m : manifests) {
        boolean dryRun = DRY_RUN.contains(m.getKind());
        HttpResponse<String> response = apply(admin, m, dryRun);
        assertThat(response.code())
            .as("%s %s: %s", m.getKind(), m.getMetadata().getName(), response.body())
            .isIn(200, 201);
        if (!dryRun) {
          var kind = admin.genericKubernetesResources(m.getApiVersion(), m.getKind());
          String ns = m.getMetadata().getNamespace();
          var resource =
              ns == null
                  ? kind.withName(m.getMetadata().getName())
                  : kind.inNamespace(ns).withName(m.getMetadata().getName());
          assertThat(resource.get())
              .as("%s %s was created", m.getKind(), m.getMetadata().getName())
              .isNotNull();
        }
      }
      var deployment =
          admin.apps().deployments().inNamespace("tally-system").withName("tally-aggregator").get();
      var container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
      assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
      assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
      assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
      assertThat(
              deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot())
          .isTrue();
      assertThat(container.getArgs()).allSatisfy(arg -> Options.parse(arg));
      // the Lease rights are bound in the aggregator's namespace only, for the Lease it uses
      var clusterBinding = admin.rbac().clusterRoleBindings().withName("tally-aggregator").get();
      assertThat(clusterBinding.getRoleRef().getName()).isEqualTo("tally-aggregator");
      var leaseBinding =
          admin
              .rbac()
              .roleBindings()
              .inNamespace("tally-system")
              .withName("tally-aggregator-lease")
              .get();
      assertThat(leaseBinding.getRoleRef().getName()).isEqualTo("tally-aggregator-lease");
      assertThat(leaseBinding.getSubjects())
          .singleElement()
          .satisfies(
              subject -> {
                assertThat(subject.getName())
                    .isEqualTo(
                        deployment.getSpec().getTemplate().getSpec().getServiceAccountName());
                assertThat(subject.getNamespace()).isEqualTo("tally-system");
              });
      GenericKubernetesResource leaseRole =
          manifests.stream()
              .filter(m -> m.getMetadata().getName().equals("tally-aggregator-lease"))
              .findFirst()
              .orElseThrow();
      String leaseName = Options.parse(container.getArgs().toArray(String[]::new)).leaseName;
      assertThat(Serialization.asYaml(leaseRole.getAdditionalProperties().get("rules")))
          .as("the only name the lease role grants")
          .contains("resourceNames", leaseName);
      assertThat(Options.parse(container.getArgs().toArray(String[]::new)).httpPort)
          .isEqualTo(container.getPorts().get(0).getContainerPort());
    } finally {
      admin.rbac().clusterRoleBindings().withName("tally-aggregator").delete();
      admin.namespaces().withName("tally-system").delete();
    }
  }

  /** The check is strict: a misspelt field in a manifest is refused, not dropped. */
  @Test
  void aMisspeltFieldIsRefused(RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    GenericKubernetesResource deployment =
        manifests().stream()
            .filter(m -> m.getKind().equals("Deployment"))
            .findFirst()
            .orElseThrow();
    String yaml = Serialization.asYaml(deployment).replace("readinessProbe:", "readynessProbe:");
    GenericKubernetesResource misspelt =
        Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    misspelt.getMetadata().setNamespace(cluster.namespace());

    HttpResponse<String> response = apply(admin, misspelt, true);

    // the real server answers a server-side apply of a field its schema lacks with a 500
    // "failed to create typed patch object (…): …readynessProbe: field not declared in schema"
    assertThat(response.code()).as(response.body()).isGreaterThanOrEqualTo(400);
    assertThat(response.body()).contains("readynessProbe", "not declared in schema");
  }

  static List<GenericKubernetesResource> manifests() throws IOException {
    List<GenericKubernetesResource> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(ChartFilesTest.deployDir())) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        String text = Files.readString(file);
        for (String doc : text.split("(?m)^---\\s*$")) {
          if (doc.lines().anyMatch(l -> l.startsWith("kind:"))) {
            try (InputStream in = new java.io.ByteArrayInputStream(doc.getBytes())) {
              out.add(Serialization.unmarshal(in, GenericKubernetesResource.class));
            }
          }
        }
      }
    }
    return out;
  }

  /** Server-side apply of {@code m}, as {@code kubectl apply --server-side --validate=strict}. */
  static HttpResponse<String> apply(
      KubernetesClient admin, GenericKubernetesResource m, boolean dryRun) throws Exception {
    String apiVersion = m.getApiVersion();
    String base = apiVersion.contains("/") ? "apis/" + apiVersion : "api/" + apiVersion;
    String namespace = m.getMetadata().getNamespace();
    String url =
        admin.getMasterUrl()
            + base
            + (namespace == null ? "" : "/namespaces/" + namespace)
            + "/"
            + plural(m.getKind())
            + "/"
            + m.getMetadata().getName()
            + "?fieldManager=tally-deploy-test&force=true&fieldValidation=Strict"
            + (dryRun ? "&dryRun=All" : "");
    var http = admin.getHttpClient();
    var request =
        http.newHttpRequestBuilder()
            .uri(url)
            .method("PATCH", "application/apply-patch+yaml", Serialization.asYaml(m))
            .build();
    return http.sendAsync(request, String.class).get(60, TimeUnit.SECONDS);
  }

  private static String plural(String kind) {
    return switch (kind) {
      case "Namespace" -> "namespaces";
      case "CustomResourceDefinition" -> "customresourcedefinitions";
      case "ClusterRole" -> "clusterroles";
      case "ClusterRoleBinding" -> "clusterrolebindings";
      case "RoleBinding" -> "rolebindings";
      case "ServiceAccount" -> "serviceaccounts";
      case "Deployment" -> "deployments";
      case "Service" -> "services";
      case "PodDisruptionBudget" -> "poddisruptionbudgets";
      default -> throw new IllegalArgumentException("a kind deploy/ should not hold: " + kind);
    };
  }
}
