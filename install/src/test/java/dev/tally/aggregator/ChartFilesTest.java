package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.TallyResources;
import dev.tally.report.gatekeeper.GatekeeperInput;
import dev.tally.report.kyverno.KyvernoInput;
import dev.tally.report.trivy.TrivyInput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The chart (charts/tally-aggregator) holds copies of what report-fabric8 ships in its jar: the
 * CRDs in {@code crds/} and the ClusterRoles in {@code files/rbac/}, which its templates render as
 * they are. The jar's files are the source: a copy that differs fails here, with the command that
 * brings it up to date. deploy/ is the chart rendered (ChartIT checks that with real Helm).
 */
class ChartFilesTest {
  static final Map<String, String> COPIES =
      Map.of(
          "crds/partialreports.tally.dev.yaml", TallyResources.PARTIAL_REPORT_CRD,
          "crds/clusterpartialreports.tally.dev.yaml", TallyResources.CLUSTER_PARTIAL_REPORT_CRD,
          "files/rbac/clusterroles.yaml", TallyResources.RBAC,
          "files/rbac/kyverno-aggregator.yaml", KyvernoInput.RBAC,
          "files/rbac/trivy-aggregator.yaml", TrivyInput.RBAC,
          "files/rbac/gatekeeper-aggregator.yaml", GatekeeperInput.RBAC);

  /** The module whose jar ships each file; report-fabric8 for the others. */
  private static final Map<String, String> MODULES =
      Map.of(
          KyvernoInput.RBAC, "report-kyverno",
          TrivyInput.RBAC, "report-trivy",
          GatekeeperInput.RBAC, "report-gatekeeper");

  static Path deployDir() {
    return Path.of(System.getProperty("tally.deploy.dir", "../deploy"))
        .toAbsolutePath()
        .normalize();
  }

  static Path chartDir() {
    return deployDir().getParent().resolve("charts/tally-aggregator");
  }

  @Test
  void theChartsCopiesAreTheManifestsTheLibraryShips() throws IOException {
    Map<String, String> shipped =
        Map.of(
            TallyResources.PARTIAL_REPORT_CRD,
            TallyResources.partialReportCrdYaml(),
            TallyResources.CLUSTER_PARTIAL_REPORT_CRD,
            TallyResources.clusterPartialReportCrdYaml(),
            TallyResources.RBAC,
            TallyResources.rbacYaml(),
            KyvernoInput.RBAC,
            KyvernoInput.rbacYaml(),
            TrivyInput.RBAC,
            TrivyInput.rbacYaml(),
            GatekeeperInput.RBAC,
            GatekeeperInput.rbacYaml());
    for (var copy : COPIES.entrySet()) {
      Path file = chartDir().resolve(copy.getKey());
      String source =
          MODULES.getOrDefault(copy.getValue(), "report-fabric8")
              + "/src/main/resources/"
              + copy.getValue();
      String target = "charts/tally-aggregator/" + copy.getKey();
      assertThat(Files.readString(file))
          .as(
              "%s is a copy of %s; bring it up to date with: cp %s %s && charts/render-deploy.sh",
              target, source, source, target)
          .isEqualTo(shipped.get(copy.getValue()));
    }
  }

  /** The chart's version and its default image's tag are the project's version. */
  @Test
  void theChartsVersionIsTheProjects() throws IOException {
    String pom = Files.readString(deployDir().getParent().resolve("pom.xml"));
    Matcher version = Pattern.compile("</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
    assertThat(version.find()).isTrue();
    String chart = Files.readString(chartDir().resolve("Chart.yaml"));
    assertThat(chart)
        .as("Chart.yaml")
        .containsPattern("(?m)^version: " + Pattern.quote(version.group(1)) + "$")
        .containsPattern("(?m)^appVersion: " + Pattern.quote(version.group(1)) + "$");
  }

  /**
   * An OutOfMemoryError on a thread other than the aggregator's (an informer's, the HTTP server's)
   * would leave a process that answers its probes and aggregates nothing: the JVM exits instead.
   */
  @Test
  void theDeploymentsEndTheProcessOnAnOutOfMemoryError() throws IOException {
    for (String rendered :
        new String[] {"tally-aggregator.yaml", "kyverno/tally-kyverno-aggregator.yaml"}) {
      assertThat(Files.readString(deployDir().resolve(rendered)))
          .as(rendered)
          .containsPattern("command: \\[\"java\",[^\\]]*\"-XX:\\+ExitOnOutOfMemoryError\"");
    }
  }
}
