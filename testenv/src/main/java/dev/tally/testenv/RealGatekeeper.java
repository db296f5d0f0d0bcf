package dev.tally.testenv;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Gatekeeper's own program, built from its Go module at the version {@code go-tools/engines/go.mod}
 * pins, running its audit out of cluster against a {@link KubeTestEnv}, with the disk export of
 * violations on: each audit run written as one file of newline-delimited JSON in a directory of the
 * test's, as the audit Deployment of Gatekeeper's chart writes it into the volume it shares with
 * its export sidecar.
 *
 * <p>{@link #install} puts into the control plane what Gatekeeper's Helm chart would, read from
 * Gatekeeper's module and rendered by real Helm with the disk export on ({@code
 * enableViolationExport=true}, {@code exportBackend=disk}): its CRDs from the chart's {@code
 * crds/}, and from the rendered chart the namespace's ServiceAccount, ClusterRoles, Roles and their
 * bindings. {@link #startAudit} runs the audit as its chart's ServiceAccount (a token from the
 * TokenRequest API), with the arguments the chart's audit Deployment gives its container and only
 * what running out of cluster needs added after them (Go's flag package takes the last of a
 * repeated flag), after writing the chart's {@code Connection} with the test's directory as its
 * path.
 */
public final class RealGatekeeper {
  public static final String NAMESPACE = "gatekeeper-system";

  /** The export connection the chart names and the audit reads (its default). */
  public static final String CONNECTION = "audit-connection";

  /** The channel the audit writes to: the directory under the connection's path (its default). */
  public static final String CHANNEL = "audit-channel";

  /** Gatekeeper's ConstraintTemplates. */
  public static final ResourceDefinitionContext CONSTRAINT_TEMPLATES =
      new ResourceDefinitionContext.Builder()
          .withGroup("templates.gatekeeper.sh")
          .withVersion("v1")
          .withKind("ConstraintTemplate")
          .withPlural("constrainttemplates")
          .withNamespaced(false)
          .build();

  private static final ResourceDefinitionContext CONNECTIONS =
      new ResourceDefinitionContext.Builder()
          .withGroup("connection.gatekeeper.sh")
          .withVersion("v1alpha1")
          .withKind("Connection")
          .withPlural("connections")
          .withNamespaced(true)
          .build();

  private static final Set<String> CHART_KINDS =
      Set.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding");

  private static final String AUDIT = "gatekeeper-audit";

  private static @Nullable RealGatekeeper installed;

  private final KubeTestEnv env;
  private final GoTools.Built gatekeeper;
  private final Path work;
  private final List<HasMetadata> chart;
  private @Nullable ChildProcess audit;

  private RealGatekeeper(
      KubeTestEnv env, GoTools.Built gatekeeper, Path work, List<HasMetadata> chart) {
    this.env = env;
    this.gatekeeper = gatekeeper;
    this.work = work;
    this.chart = chart;
  }

  /**
   * Builds Gatekeeper and Helm when this machine has no build of them, and installs Gatekeeper's
   * CRDs, namespace, accounts and roles into {@code env}, once per JVM.
   */
  public static synchronized RealGatekeeper install(KubeTestEnv env) {
    if (installed != null) {
      return installed;
    }
    Path work = Path.of(System.getProperty("user.dir"), "target", "gatekeeper");
    GoTools.Built gatekeeper = GoTools.build("gatekeeper", work.resolve("build-gatekeeper.log"));
    Helm helm = Helm.build(work);
    List<HasMetadata> chart;
    try (KubernetesClient admin = env.adminClient()) {
      ChartObjects.installCrds(
          admin, List.of(gatekeeper.moduleDir().resolve("charts/gatekeeper/crds")));
      chart = renderChart(helm, gatekeeper.moduleDir().resolve("charts/gatekeeper"), work);
      ChartObjects.apply(admin, NAMESPACE, chart, CHART_KINDS);
    }
    installed = new RealGatekeeper(env, gatekeeper, work, chart);
    return installed;
  }

  /** The source of Gatekeeper's module (read-only): its CRDs, chart and library. */
  public Path moduleDir() {
    return gatekeeper.moduleDir();
  }

  /** What the chart renders with the disk export on (every kind, also those not installed). */
  public List<HasMetadata> chart() {
    return chart;
  }

  /**
   * Starts the audit, exporting each run into {@code exportPath}{@code /}{@link #CHANNEL}, with a
   * run every {@code interval}: the chart's {@code Connection}, its path replaced by {@code
   * exportPath}, is written first. One audit runs at a time (the chart has one Connection and one
   * audit Pod); each start has an API cache directory of its own.
   */
  public synchronized ChildProcess startAudit(
      Path exportPath, Duration interval, String... extraArgs) {
    if (audit != null && audit.isAlive()) {
      // the Connection (so the export's path) and the Pod are the chart's, one of each
      throw new IllegalStateException("Gatekeeper's audit runs already: one at a time");
    }
    try (KubernetesClient admin = env.adminClient()) {
      Files.createDirectories(exportPath);
      GenericKubernetesResource connection =
          chart.stream()
              .filter(o -> o.getKind().equals("Connection"))
              .map(o -> (GenericKubernetesResource) o)
              .findFirst()
              .orElseThrow(
                  () -> new IllegalStateException("Gatekeeper's chart renders no Connection"));
      @SuppressWarnings("unchecked")
      Map<String, Object> spec =
          (Map<String, Object>) connection.getAdditionalProperties().get("spec");
      @SuppressWarnings("unchecked")
      Map<String, Object> config = (Map<String, Object>) spec.get("config");
      config.put("path", exportPath.toAbsolutePath().toString());
      connection.getMetadata().setNamespace(NAMESPACE);
      admin
          .genericKubernetesResources(CONNECTIONS)
          .resource(connection)
          .forceConflicts()
          .serverSideApply();
      // Gatekeeper owns its status objects by its own Pod (POD_NAME) and looks it up: the Pod the
      // chart's Deployment would run, as an object only (the control plane runs no kubelet)
      admin.pods().resource(pod()).forceConflicts().serverSideApply();

      // the chart's emptyDir at /tmp/audit: the audit writes what it lists there, and stops a
      // run early (writing its finish line all the same) when it is missing
      Files.createDirectories(work);
      Path apiCache = Files.createTempDirectory(work, "audit-cache-");
      Path kubeconfig = work.resolve("audit.kubeconfig");
      Files.writeString(
          kubeconfig,
          env.serviceAccountKubeconfig(
              NAMESPACE,
              ChartObjects.deployment(chart, AUDIT)
                  .getSpec()
                  .getTemplate()
                  .getSpec()
                  .getServiceAccountName()));
      List<String> command = new ArrayList<>();
      command.add(gatekeeper.program("gatekeeper").toString());
      command.addAll(ChartObjects.container(chart, AUDIT, "manager").getArgs());
      command.addAll(
          List.of(
              "--kubeconfig=" + kubeconfig,
              "--health-addr=127.0.0.1:" + ChildProcess.freePort(),
              "--prometheus-port=" + ChildProcess.freePort(),
              "--api-cache-dir=" + apiCache,
              // no webhook runs out of cluster, so there are no certificates to rotate for it, nor
              // the webhook's certificate that external data's client authenticates with (in the
              // chart, a Secret the controller manager's rotation fills): the tests use no
              // external data provider
              "--disable-cert-rotation=true",
              "--enable-external-data=false",
              "--audit-interval=" + interval.toSeconds()));
      command.addAll(List.of(extraArgs));
      Map<String, String> environment =
          new LinkedHashMap<>(
              ChartObjects.plainEnv(ChartObjects.container(chart, AUDIT, "manager")));
      environment.put("POD_NAMESPACE", NAMESPACE);
      environment.put("NAMESPACE", NAMESPACE);
      environment.put("POD_NAME", pod().getMetadata().getName());
      audit =
          ChildProcess.start(
              "gatekeeper-audit", command, environment, ChildProcess.logFile(work, "audit"), 0);
      return audit;
    } catch (IOException e) {
      throw new UncheckedIOException("starting Gatekeeper's audit", e);
    }
  }

  /** The audit's Pod as the chart's Deployment templates it, named {@code POD_NAME}. */
  private Pod pod() {
    Deployment deployment = ChartObjects.deployment(chart, AUDIT);
    return new PodBuilder()
        .withNewMetadata()
        .withName(AUDIT + "-0")
        .withNamespace(NAMESPACE)
        .withLabels(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .endMetadata()
        .withSpec(deployment.getSpec().getTemplate().getSpec())
        .build();
  }

  /**
   * Gatekeeper's chart rendered by real Helm with its default values and the disk export on, under
   * the connection and channel names this class exports with. Helm reads the module's read-only
   * chart folder in place.
   */
  private static List<HasMetadata> renderChart(Helm helm, Path chartDir, Path work) {
    try {
      Files.createDirectories(work);
      Path out = work.resolve("chart-rendered.yaml");
      Files.writeString(
          out,
          helm.ok(
              work,
              "template",
              "gatekeeper",
              chartDir.toString(),
              "--namespace",
              NAMESPACE,
              "--kube-version",
              "1.37.0",
              "--set",
              "enableViolationExport=true",
              "--set",
              "exportBackend=disk",
              // the defaults the chart's README gives them, which its values.yaml (v3.23.1) lacks:
              // without them the Connection is rendered without a name
              "--set",
              "audit.connection=" + CONNECTION,
              "--set",
              "audit.channel=" + CHANNEL));
      return ChartObjects.parse(out);
    } catch (IOException e) {
      throw new UncheckedIOException("rendering Gatekeeper's chart", e);
    }
  }
}
