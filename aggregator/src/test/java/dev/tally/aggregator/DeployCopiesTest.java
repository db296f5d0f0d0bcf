package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.TallyResources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * deploy/ holds copies of the manifests report-fabric8 ships in its jar (the CRDs and the
 * ClusterRoles), so that {@code kubectl apply -f deploy/} needs nothing else. The jar's files are
 * the source: a copy that differs from it fails here, with the command that brings it up to date.
 */
class DeployCopiesTest {
  static final Map<String, String> COPIES =
      Map.of(
          "10-crd-partialreports.tally.dev.yaml", TallyResources.PARTIAL_REPORT_CRD,
          "11-crd-clusterpartialreports.tally.dev.yaml", TallyResources.CLUSTER_PARTIAL_REPORT_CRD,
          "20-clusterroles.yaml", TallyResources.RBAC,
          "kyverno/10-clusterroles.yaml", TallyResources.KYVERNO_RBAC);

  static Path deployDir() {
    return Path.of(System.getProperty("tally.deploy.dir", "../deploy"))
        .toAbsolutePath()
        .normalize();
  }

  @Test
  void theCopiesInDeployAreTheManifestsTheLibraryShips() throws IOException {
    Map<String, String> shipped =
        Map.of(
            TallyResources.PARTIAL_REPORT_CRD, TallyResources.partialReportCrdYaml(),
            TallyResources.CLUSTER_PARTIAL_REPORT_CRD, TallyResources.clusterPartialReportCrdYaml(),
            TallyResources.RBAC, TallyResources.rbacYaml(),
            TallyResources.KYVERNO_RBAC, TallyResources.kyvernoRbacYaml());
    for (var copy : COPIES.entrySet()) {
      Path file = deployDir().resolve(copy.getKey());
      String source = "report-fabric8/src/main/resources/" + copy.getValue();
      assertThat(Files.readString(file))
          .as(
              "deploy/%s is a copy of %s; bring it up to date with: cp %s deploy/%s",
              copy.getKey(), source, source, copy.getKey())
          .isEqualTo(shipped.get(copy.getValue()));
    }
  }

  /**
   * An OutOfMemoryError on a thread other than the aggregator's (an informer's, the HTTP server's)
   * would leave a process that answers its probes and aggregates nothing: the JVM exits instead.
   */
  @Test
  void theDeploymentsEndTheProcessOnAnOutOfMemoryError() throws IOException {
    for (String deployment : new String[] {"40-deployment.yaml", "kyverno/30-deployment.yaml"}) {
      assertThat(Files.readString(deployDir().resolve(deployment)))
          .as(deployment)
          .containsPattern("command: \\[\"java\",[^\\]]*\"-XX:\\+ExitOnOutOfMemoryError\"");
    }
  }
}
