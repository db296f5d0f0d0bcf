package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.TallyResources;
import dev.tally.testenv.Helm;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * charts/tally-aggregator with real Helm (built from kube-testenv's module, cached per machine), as
 * a cluster admin uses it: {@code helm lint --strict} with each values file, deploy/ being the
 * chart rendered, values that are misspelt or wrong refused before anything is installed, and
 * {@code helm install}, {@code upgrade} and {@code uninstall} of the Tally input on kube-testenv,
 * with what the installed ServiceAccount may do asked of the server's authorizer. The Kyverno
 * input's install and its rights: KyvernoDeployManifestsIT.
 */
@ExtendWith(RealKubernetes.class)
class ChartIT {
  static final Path ROOT = ChartFilesTest.deployDir().getParent();
  private static final String CHART = "charts/tally-aggregator";
  private static final String NAME = "tally-aggregator";

  static Helm helm() {
    return ChartRender.helm();
  }

  @Test
  void theChartLintsStrictlyWithEitherValuesFile(RealKubernetes.Cluster cluster) {
    assertThat(helm().ok(ROOT, "lint", "--strict", CHART)).contains("0 chart(s) failed");
    assertThat(helm().ok(ROOT, "lint", "--strict", CHART, "-f", CHART + "/values-kyverno.yaml"))
        .contains("0 chart(s) failed");
    // what the defaults leave out: a ServiceMonitor, one replica (no PodDisruptionBudget),
    // openreports, server-side apply, extra flags
    String rendered =
        helm()
            .ok(
                ROOT,
                "template",
                NAME,
                CHART,
                "--set",
                "metrics.serviceMonitor.enabled=true,replicas=1,format=openreports,"
                    + "serverSideApply=true,extraArgs[0]=--max-clock-skew=1m");
    assertThat(rendered)
        .contains("kind: ServiceMonitor", "- --format=openreports", "- --server-side-apply")
        .contains("- --max-clock-skew=1m")
        .doesNotContain("kind: PodDisruptionBudget");
    assertThat(
            helm()
                .ok(
                    ROOT,
                    "lint",
                    "--strict",
                    CHART,
                    "--set",
                    "metrics.serviceMonitor.enabled=true,replicas=1"))
        .contains("0 chart(s) failed");
  }

  /** deploy/ is the chart rendered, for kubectl users: it must not drift from the chart. */
  @Test
  void deployIsTheChartRendered(RealKubernetes.Cluster cluster) throws Exception {
    Path out = Path.of(System.getProperty("user.dir"), "target", "rendered-deploy");
    ProcessBuilder pb =
        new ProcessBuilder(
                "bash", ROOT.resolve("charts/render-deploy.sh").toString(), out.toString())
            .redirectErrorStream(true)
            .redirectOutput(Files.createDirectories(out).resolve("render.log").toFile());
    pb.environment().put("HELM", helm().binary().toString());
    Process p = pb.start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(out.resolve("render.log"))).isZero();
    for (String file : List.of("tally-aggregator.yaml", "kyverno/tally-kyverno-aggregator.yaml")) {
      assertThat(Files.readString(ChartFilesTest.deployDir().resolve(file)))
          .as(
              "deploy/%s is the chart rendered; bring it up to date with charts/render-deploy.sh",
              file)
          .isEqualTo(Files.readString(out.resolve(file)));
    }
  }

  /** values.schema.json and the templates refuse what would not work, naming the value. */
  @Test
  void aMisspeltOrWrongValueIsRefusedBeforeAnythingIsInstalled(RealKubernetes.Cluster cluster) {
    Helm against = helm().against(cluster.env().kubeconfig());
    String ns = cluster.namespace();
    List<String[]> refused =
        List.of(
            new String[] {"--set", "replicaz=3", "replicaz"},
            new String[] {"--set", "input=kyvern", "input"},
            new String[] {"--set", "grouping=per-pod", "grouping"},
            new String[] {"--set", "kyverno.adoptionGrace=2minutes", "adoptionGrace"},
            new String[] {"--set", "budget.qps=0", "qps"},
            new String[] {"--set", "extraArgs[0]=-v", "extraArgs"},
            new String[] {
              "--set",
              "metrics.serviceMonitor.enabled=true,metrics.service.enabled=false",
              "metrics.serviceMonitor.enabled needs metrics.service.enabled"
            });
    List<String> wrong = new ArrayList<>();
    for (String[] value : refused) {
      Helm.Run run = against.run(ROOT, "install", NAME, CHART, "-n", ns, value[0], value[1]);
      if (run.ok() || !run.err().contains(value[2])) {
        wrong.add(value[1] + ": exit " + run.exit() + ", " + run.err());
      }
    }
    assertThat(wrong).as("values that should have been refused, naming the value").isEmpty();
    assertThat(against.ok(ROOT, "list", "-n", ns, "-q")).isBlank();
    assertThat(cluster.admin().apps().deployments().inNamespace(ns).list().getItems()).isEmpty();
  }

  @Test
  void installUpgradeAndUninstallTheTallyInput(RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    Helm against = helm().against(cluster.env().kubeconfig());
    try {
      // the control plane of this JVM may already hold the shipped ClusterRoles (ImageIT installs
      // them): the chart takes them over, as it would from an earlier kubectl install
      against.ok(ROOT, "install", NAME, CHART, "-n", ns, "--take-ownership");
      Deployment deployment = admin.apps().deployments().inNamespace(ns).withName(NAME).get();
      assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
      var pod = deployment.getSpec().getTemplate();
      var container = pod.getSpec().getContainers().get(0);
      assertThat(container.getImage()).isEqualTo("tally-aggregator:0.1.0-SNAPSHOT");
      assertThat(pod.getSpec().getServiceAccountName()).isEqualTo(NAME);
      Options options = Options.parse(container.getArgs().toArray(String[]::new));
      assertThat(options.leaseName).isEqualTo(NAME);
      assertThat(options.httpPort).isEqualTo(container.getPorts().get(0).getContainerPort());
      var service = admin.services().inNamespace(ns).withName(NAME).get();
      assertThat(pod.getMetadata().getLabels())
          .containsAllEntriesOf(service.getSpec().getSelector());
      var pdb = admin.policy().v1().podDisruptionBudget().inNamespace(ns).withName(NAME).get();
      assertThat(pod.getMetadata().getLabels())
          .containsAllEntriesOf(pdb.getSpec().getSelector().getMatchLabels());
      assertThat(admin.serviceAccounts().inNamespace(ns).withName(NAME).get()).isNotNull();
      assertThat(admin.rbac().clusterRoleBindings().withName(NAME).get().getSubjects())
          .singleElement()
          .satisfies(s -> assertThat(s.getNamespace()).isEqualTo(ns));

      // what the installed ServiceAccount may do, and may not
      String other = cluster.otherNamespace("other");
      AccessReview rights = new AccessReview(admin, ns, NAME);
      for (String verb : List.of("list", "watch")) {
        rights.expect(true, verb, "tally.dev", "partialreports", null, null);
        rights.expect(true, verb, "tally.dev", "clusterpartialreports", null, null);
      }
      rights
          .expect(false, "get", "tally.dev", "partialreports", other, "x")
          .expect(false, "create", "tally.dev", "partialreports", other, null)
          .expect(true, "create", "wgpolicyk8s.io", "policyreports", other, null)
          .expect(true, "update", "openreports.io", "reports", other, "x")
          .expect(false, "watch", "wgpolicyk8s.io", "policyreports", null, null)
          .expect(true, "create", "", "events", other, null)
          .expect(true, "create", "coordination.k8s.io", "leases", ns, null)
          .expect(true, "patch", "coordination.k8s.io", "leases", ns, NAME)
          .expect(false, "patch", "coordination.k8s.io", "leases", ns, "someone-else")
          .expect(false, "get", "coordination.k8s.io", "leases", "kube-system", NAME)
          .expect(false, "get", "", "secrets", ns, null)
          .expect(false, "list", "", "pods", other, null)
          .expect(false, "create", "rbac.authorization.k8s.io", "rolebindings", ns, null);
      assertThat(rights.wrong()).isEmpty();

      // an upgrade changes what it is asked to; a wrong value changes nothing
      against.ok(
          ROOT,
          "upgrade",
          NAME,
          CHART,
          "-n",
          ns,
          "--reuse-values",
          "--set",
          "replicas=3,format=openreports");
      Deployment upgraded = admin.apps().deployments().inNamespace(ns).withName(NAME).get();
      assertThat(upgraded.getSpec().getReplicas()).isEqualTo(3);
      List<String> upgradedArgs =
          upgraded.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
      assertThat(upgradedArgs).contains("--format=openreports");
      Helm.Run wrongUpgrade =
          against.run(
              ROOT, "upgrade", NAME, CHART, "-n", ns, "--reuse-values", "--set", "replicas=0");
      assertThat(wrongUpgrade.ok()).isFalse();
      assertThat(wrongUpgrade.err()).contains("replicas");
      Deployment after = admin.apps().deployments().inNamespace(ns).withName(NAME).get();
      assertThat(after.getSpec().getReplicas()).isEqualTo(3);
      assertThat(after.getMetadata().getGeneration())
          .isEqualTo(upgraded.getMetadata().getGeneration());

      against.ok(ROOT, "uninstall", NAME, "-n", ns);
      assertThat(admin.apps().deployments().inNamespace(ns).withName(NAME).get()).isNull();
      assertThat(admin.serviceAccounts().inNamespace(ns).withName(NAME).get()).isNull();
      assertThat(admin.services().inNamespace(ns).withName(NAME).get()).isNull();
      assertThat(admin.rbac().roleBindings().inNamespace(ns).withName(NAME + "-lease").get())
          .isNull();
      assertThat(admin.rbac().clusterRoleBindings().withName(NAME).get()).isNull();
      assertThat(admin.rbac().clusterRoles().withName(NAME).get()).isNull();
      // Helm never deletes the CRDs of crds/: the partial reports in them outlive the release
      assertThat(
              admin
                  .apiextensions()
                  .v1()
                  .customResourceDefinitions()
                  .withName("partialreports.tally.dev")
                  .get())
          .isNotNull();
    } finally {
      against.run(ROOT, "uninstall", NAME, "-n", ns);
      admin.rbac().clusterRoleBindings().withName(NAME).delete();
      TallyResources.installClusterRoles(admin); // as the other tests of this JVM expect them
    }
  }
}
