package dev.tally.testenv;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Kyverno's own programs, built from its Go module at the version {@code go-tools/engines/go.mod}
 * pins, running out of cluster against a {@link KubeTestEnv}: the admission controller ({@code
 * kyverno}, whose webhooks the API server really calls on loopback) and the reports controller.
 *
 * <p>{@link #install} puts into the control plane what Kyverno's Helm chart would, read from
 * Kyverno's module and rendered by real Helm (built from kube-testenv's Go module (its {@code
 * tool})): Kyverno's CRDs from {@code config/crds}, and from the chart rendered with its default
 * values the namespace's ServiceAccounts, ClusterRoles (aggregated by the control plane's
 * aggregation controller), Roles, their bindings and the two ConfigMaps. Each program runs as its
 * chart's ServiceAccount (a token from the TokenRequest API), with the arguments the chart's
 * Deployment gives its container and only what running out of cluster needs added after them (Go's
 * flag package takes the last of a repeated flag).
 */
public final class RealKyverno {
  public static final String NAMESPACE = "kyverno";

  private static final Set<String> CHART_KINDS =
      Set.of(
          "ServiceAccount",
          "ClusterRole",
          "ClusterRoleBinding",
          "Role",
          "RoleBinding",
          "ConfigMap");
  private static final List<String> CRD_FOLDERS =
      List.of("kyverno", "policies.kyverno.io", "reports", "policyreport");

  private static @Nullable RealKyverno installed;

  private final KubeTestEnv env;
  private final GoTools.Built kyverno;
  private final Path work;
  private final List<HasMetadata> chart;

  private RealKyverno(KubeTestEnv env, GoTools.Built kyverno, Path work, List<HasMetadata> chart) {
    this.env = env;
    this.kyverno = kyverno;
    this.work = work;
    this.chart = chart;
  }

  /** Why Kyverno cannot run here, or empty when it can. */
  public static @Nullable String unavailableBecause() {
    String why = KubeTestEnv.unavailableBecause();
    return why != null ? why : GoTools.unavailableBecause();
  }

  /**
   * Builds Kyverno and Helm when this machine has no build of them, and installs Kyverno's CRDs,
   * namespace, accounts, roles and configuration into {@code env}, once per JVM.
   */
  public static synchronized RealKyverno install(KubeTestEnv env) {
    if (installed != null) {
      return installed;
    }
    Path work = Path.of(System.getProperty("user.dir"), "target", "kyverno");
    GoTools.Built kyverno = GoTools.build("kyverno", work.resolve("build-kyverno.log"));
    Helm helm = Helm.build(work);
    List<HasMetadata> chart;
    try (KubernetesClient admin = env.adminClient()) {
      ChartObjects.installCrds(
          admin,
          CRD_FOLDERS.stream()
              .map(f -> kyverno.moduleDir().resolve("config/crds").resolve(f))
              .toList());
      chart = renderChart(helm, kyverno.moduleDir(), work);
      ChartObjects.apply(admin, NAMESPACE, chart, CHART_KINDS);
    }
    installed = new RealKyverno(env, kyverno, work, chart);
    return installed;
  }

  /** The source of Kyverno's module (read-only): its CRDs, chart and tests. */
  public Path moduleDir() {
    return kyverno.moduleDir();
  }

  /** What the chart renders, with its default values (every kind, also those not installed). */
  public List<HasMetadata> chart() {
    return chart;
  }

  /**
   * Starts the admission controller; it registers its webhooks with a URL on loopback, at a port of
   * its own, and is ready when its webhook server answers.
   */
  public ChildProcess startAdmissionController(String... extraArgs) {
    int webhookPort = ChildProcess.freePort();
    return start(
        "admission-controller",
        "kyverno",
        "kyverno",
        List.of(
            "--serverIP=127.0.0.1:" + webhookPort,
            "--webhookServerHost=127.0.0.1",
            "--webhookServerPort=" + webhookPort,
            "--servicePort=" + webhookPort,
            "--controllerRuntimeMetricsAddress=0"),
        extraArgs,
        webhookPort);
  }

  /**
   * Starts the reports controller, with its aggregation on or off ({@code --aggregateReports}) and
   * a background scan every {@code scanInterval}.
   */
  public ChildProcess startReportsController(
      boolean aggregate, Duration scanInterval, String... extraArgs) {
    return start(
        "reports-controller",
        "reports-controller",
        "controller",
        List.of(
            "--aggregateReports=" + aggregate,
            "--backgroundScanInterval=" + scanInterval.toSeconds() + "s"),
        extraArgs,
        0);
  }

  /**
   * Starts one of Kyverno's programs as its chart runs it: Deployment {@code kyverno-<name>}, of
   * ServiceAccount {@code kyverno-<name>}, with that Deployment's {@code container}'s arguments,
   * then what running out of cluster needs (metrics and profiling on ports of their own, no memory
   * limit to read, plain logs), then {@code own} and {@code extra} (the last of a repeated flag
   * wins).
   */
  private ChildProcess start(
      String name,
      String program,
      String container,
      List<String> own,
      String[] extra,
      int webhookPort) {
    String deployment = "kyverno-" + name;
    String account = deployment;
    try {
      Files.createDirectories(work);
      Path kubeconfig = work.resolve(name + ".kubeconfig");
      Files.writeString(kubeconfig, env.serviceAccountKubeconfig(NAMESPACE, account));
      List<String> command = new ArrayList<>();
      command.add(kyverno.program(program).toString());
      command.add("--kubeconfig=" + kubeconfig);
      command.addAll(ChartObjects.container(chart, deployment, container).getArgs());
      command.addAll(
          List.of(
              "--metricsHost=127.0.0.1",
              "--metricsPort=" + ChildProcess.freePort(),
              "--profilePort=" + ChildProcess.freePort(),
              "--autoMemLimitEnabled=false",
              "--disableLogColor=true"));
      command.addAll(own);
      command.addAll(List.of(extra));
      Map<String, String> environment =
          new LinkedHashMap<>(
              ChartObjects.plainEnv(ChartObjects.container(chart, deployment, container)));
      environment.put("KYVERNO_NAMESPACE", NAMESPACE);
      environment.put("KYVERNO_POD_NAME", deployment + "-0");
      environment.put("KYVERNO_SERVICEACCOUNT_NAME", account);
      environment.put("KYVERNO_DEPLOYMENT", deployment);
      // the chart's /.sigstore is the image's; out of cluster, a folder of the test's
      environment.put("TUF_ROOT", work.resolve("sigstore").toString());
      return ChildProcess.start(
          name, command, environment, ChildProcess.logFile(work, name), webhookPort);
    } catch (IOException e) {
      throw new UncheckedIOException("starting Kyverno's " + name, e);
    }
  }

  /**
   * Kyverno's chart rendered by real Helm with its default values. The module's copy is read-only
   * and names three sub-charts served from the Internet (the CRDs of kyverno-api and openreports,
   * and reports-server), all off by default: a copy without them is what is rendered.
   */
  private static List<HasMetadata> renderChart(Helm helm, Path module, Path work) {
    try {
      Path copy = work.resolve("chart");
      if (Files.exists(copy)) {
        try (Stream<Path> old = Files.walk(copy)) {
          for (Path p : old.sorted((a, b) -> b.compareTo(a)).toList()) {
            p.toFile().setWritable(true);
            Files.delete(p);
          }
        }
      }
      Path source = module.resolve("charts/kyverno");
      try (Stream<Path> files = Files.walk(source)) {
        for (Path p : files.toList()) {
          Path target = copy.resolve(source.relativize(p).toString());
          if (Files.isDirectory(p)) {
            Files.createDirectories(target);
          } else {
            Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
            target.toFile().setWritable(true);
          }
        }
      }
      copy.toFile().setWritable(true);
      Files.deleteIfExists(copy.resolve("Chart.lock"));
      Files.writeString(
          copy.resolve("Chart.yaml"),
          withoutRemoteDependencies(Files.readString(source.resolve("Chart.yaml"))));
      Path out = work.resolve("chart-rendered.yaml");
      Files.writeString(
          out,
          helm.ok(
              work,
              "template",
              "kyverno",
              copy.toString(),
              "--namespace",
              NAMESPACE,
              "--kube-version",
              "1.37.0"));
      return ChartObjects.parse(out);
    } catch (IOException e) {
      throw new UncheckedIOException("rendering Kyverno's chart", e);
    }
  }

  /** Chart.yaml with the entries of {@code dependencies:} that name a repository removed. */
  static String withoutRemoteDependencies(String chartYaml) {
    StringBuilder out = new StringBuilder();
    List<String> entry = new ArrayList<>();
    boolean inDependencies = false;
    for (String line : chartYaml.split("\n", -1)) {
      if (line.startsWith("dependencies:")) {
        inDependencies = true;
        out.append(line).append('\n');
        continue;
      }
      if (inDependencies && !line.isEmpty() && !line.startsWith(" ") && !line.startsWith("-")) {
        flush(out, entry);
        inDependencies = false;
      }
      if (!inDependencies) {
        out.append(line).append('\n');
      } else if (line.trim().startsWith("- ")) {
        flush(out, entry);
        entry.add(line);
      } else {
        entry.add(line);
      }
    }
    flush(out, entry);
    return out.toString().stripTrailing() + "\n";
  }

  private static void flush(StringBuilder out, List<String> entry) {
    if (!entry.isEmpty() && entry.stream().noneMatch(l -> l.trim().startsWith("repository:"))) {
      entry.forEach(l -> out.append(l).append('\n'));
    }
    entry.clear();
  }

  /** The ConfigMap {@code kyverno} as the chart renders it (Kyverno's resource filters). */
  public ConfigMap configMap() {
    return chart.stream()
        .filter(o -> o instanceof ConfigMap && o.getMetadata().getName().equals("kyverno"))
        .map(o -> (ConfigMap) o)
        .findFirst()
        .orElseThrow();
  }
}
