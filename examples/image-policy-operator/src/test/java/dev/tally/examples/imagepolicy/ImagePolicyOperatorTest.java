package dev.tally.examples.imagepolicy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.TallyResources;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.Operator;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The example operator end to end on the real control plane (kube-testenv), on fabric8 7.5.2 and
 * JOSDK 5.2.3: the operator runs as a service account bound only to Tally's shipped ClusterRoles
 * and the example's own, the aggregator runs inside it, and the namespace's PolicyReport follows
 * the Deployment's image.
 */
@ExtendWith(RealKubernetes.class)
class ImagePolicyOperatorTest {
  private static final String PINNED =
      "nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31";

  @Test
  void anUnpinnedImageFailsAndPinningItRetractsTheFailure(RealKubernetes.Cluster cluster) {
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    installCrds(admin);
    installRoles(admin);
    KubernetesClient operatorClient =
        cluster.serviceAccount(
            "image-policy-operator", "tally-aggregator", "tally-producer", "image-policy-operator");
    Operator operator = ImagePolicyOperator.create(operatorClient, Set.of(ns));
    operator.start();
    try {
      admin.apps().deployments().inNamespace(ns).resource(deployment(ns, "nginx:latest")).create();

      Await.until(
          "the PolicyReport shows the unpinned image's failure",
          () -> results(admin, ns).equals(List.of("web container-web fail")),
          Duration.ofSeconds(120));

      admin
          .apps()
          .deployments()
          .inNamespace(ns)
          .withName("web")
          .edit(
              d -> {
                d.getSpec().getTemplate().getSpec().getContainers().get(0).setImage(PINNED);
                return d;
              });

      Await.until(
          "pinning the image replaces the failure with a pass",
          () -> results(admin, ns).equals(List.of("web container-web pass")),
          Duration.ofSeconds(120));
      GenericKubernetesResource report = policyReports(admin, ns).get(0);
      assertThat(report.getMetadata().getLabels())
          .containsEntry("app.kubernetes.io/managed-by", "tally");
    } finally {
      operator.stop();
    }
  }

  private static Deployment deployment(String ns, String image) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName("web")
        .withNamespace(ns)
        .endMetadata()
        .withNewSpec()
        .withReplicas(1)
        .withNewSelector()
        .addToMatchLabels("app", "web")
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", "web")
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("web")
        .withImage(image)
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static List<GenericKubernetesResource> policyReports(KubernetesClient admin, String ns) {
    return admin
        .genericKubernetesResources("wgpolicyk8s.io/v1alpha2", "PolicyReport")
        .inNamespace(ns)
        .list()
        .getItems();
  }

  /** Every result of the namespace's PolicyReports as "resource rule result". */
  @SuppressWarnings("unchecked")
  private static List<String> results(KubernetesClient admin, String ns) {
    List<String> lines = new ArrayList<>();
    for (GenericKubernetesResource report : policyReports(admin, ns)) {
      Object results = report.getAdditionalProperties().get("results");
      if (results == null) {
        continue;
      }
      for (Map<String, Object> r : (List<Map<String, Object>>) results) {
        List<Map<String, Object>> resources =
            (List<Map<String, Object>>) r.getOrDefault("resources", List.of());
        String names =
            String.join(",", resources.stream().map(o -> String.valueOf(o.get("name"))).toList());
        lines.add(names + " " + r.get("rule") + " " + r.get("result"));
      }
    }
    return lines;
  }

  private static synchronized void installCrds(KubernetesClient admin) {
    List<CustomResourceDefinition> crds = new ArrayList<>(TallyResources.crds());
    for (String file :
        List.of(
            "wgpolicyk8s.io_policyreports.v1alpha2.yaml",
            "wgpolicyk8s.io_clusterpolicyreports.v1alpha2.yaml")) {
      crds.add(Serialization.unmarshal(resource("crds/" + file), CustomResourceDefinition.class));
    }
    for (CustomResourceDefinition crd : crds) {
      admin.resource(crd).createOr(existing -> existing.update());
    }
    // Established is not yet servable: until its watch cache is initialized the server answers
    // 429 "storage is (re)initializing"
    Await.until(
        "the report kinds are served",
        () -> {
          try {
            policyReports(admin, "default");
            admin
                .genericKubernetesResources("tally.dev/v1alpha1", "PartialReport")
                .inAnyNamespace()
                .list();
            return true;
          } catch (KubernetesClientException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }

  private static void installRoles(KubernetesClient admin) {
    List<String> yamls = List.of(TallyResources.rbacYaml(), resource("rbac.yaml"));
    for (String yaml : yamls) {
      for (HasMetadata role :
          admin.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items()) {
        admin.resource(role).createOr(existing -> existing.update());
      }
    }
  }

  private static String resource(String name) {
    try (InputStream in =
        ImagePolicyOperatorTest.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
