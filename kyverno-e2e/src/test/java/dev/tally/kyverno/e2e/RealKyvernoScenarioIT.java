package dev.tally.kyverno.e2e;

import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealKubernetes.class)
class RealKyvernoScenarioIT {
  @Test
  void smoke(RealKubernetes.Cluster cluster) {
    KubernetesClient admin = cluster.admin();
    try (Aggregation run =
        Aggregation.start(cluster.env(), Aggregation.Mode.KYVERNO, Duration.ofSeconds(10))) {
      String ns = cluster.namespace();
      admin
          .namespaces()
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName(ns)
                  .addToLabels("tally-e2e", "true")
                  .endMetadata()
                  .build())
          .serverSideApply();
      Policies.applyAll(admin, ns);
      admin
          .pods()
          .inNamespace(ns)
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("web-0")
                  .addToLabels("owner-check", "on")
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("web")
                  .withImage("nginx:1.27")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
      Await.until(
          "web-0 has a report",
          () -> Reports.of(admin, ns).containsKey("Pod/web-0"),
          Duration.ofMinutes(2));
      System.out.println("REPORTS " + Reports.of(admin, ns));
    }
  }
}
