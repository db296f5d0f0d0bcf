package dev.tally.kyverno.e2e;

import dev.tally.testenv.ChildProcess;
import dev.tally.testenv.KubeTestEnv;
import dev.tally.testenv.RealKyverno;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Tally's aggregator beside Kyverno as {@code deploy/kyverno/} installs it: every manifest of that
 * folder applied (server-side, strict field validation), and {@code tally-aggregator.jar} run as a
 * process with the Deployment's JVM options and arguments, as the Deployment's ServiceAccount (a
 * token from the TokenRequest API), so that it has exactly the shipped roles. The control plane has
 * no kubelet, so the Deployment object itself starts nothing; only what a pod needs from its
 * environment is supplied: the kubeconfig of its account, {@code POD_NAME}, the heap its memory
 * limit gives, and a free HTTP port.
 */
public final class TallyBeside implements AutoCloseable {
  /** The ServiceAccount deploy/kyverno/ gives the aggregator. */
  public static final String ACCOUNT = "tally-kyverno-aggregator";

  private final ChildProcess process;
  private final int httpPort;

  private TallyBeside(ChildProcess process, int httpPort) {
    this.process = process;
    this.httpPort = httpPort;
  }

  /** The folder {@code deploy/kyverno/} of the repository. */
  public static Path deployDir() {
    String configured = System.getProperty("tally.deploy.dir");
    Path deploy = configured != null ? Path.of(configured) : Path.of("deploy");
    return deploy.resolve("kyverno");
  }

  /**
   * JVM options added to those of the Deployment, from the system property {@code
   * tally.aggregator.jvm-options} (space-separated; none by default): e.g. {@code
   * -XX:StartFlightRecording=filename=target/tally.jfr,settings=profile} to profile the aggregator
   * under the side-by-side load.
   */
  static List<String> extraJvmOptions() {
    String options = System.getProperty("tally.aggregator.jvm-options", "").trim();
    return options.isEmpty() ? List.of() : List.of(options.split("\\s+"));
  }

  /** The aggregator jar, as {@code aggregator}'s package phase builds it. */
  public static Path jar() {
    Path jar =
        Path.of(
            System.getProperty("tally.aggregator.jar", "aggregator/target/tally-aggregator.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: build it first (./mvnw package)");
    }
    return jar;
  }

  /**
   * Applies every manifest of {@code deploy/kyverno/} (the chart rendered with its Kyverno values)
   * as {@code kubectl apply --server-side --validate=strict} does; returns what was applied.
   */
  public static List<HasMetadata> applyManifests(KubernetesClient admin) {
    List<HasMetadata> applied = new ArrayList<>();
    try (Stream<Path> files = Files.list(deployDir())) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        // helm template's output: documents, some of them only comments (a file's header)
        for (String doc : Files.readString(file).split("(?m)^---\\s*$")) {
          if (doc.lines().noneMatch(l -> l.startsWith("kind:"))) {
            continue;
          }
          for (HasMetadata object :
              admin
                  .load(
                      new java.io.ByteArrayInputStream(
                          doc.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                  .items()) {
            admin
                .resource(object)
                .fieldValidation(
                    io.fabric8.kubernetes.client.dsl.FieldValidateable.Validation.STRICT)
                .forceConflicts()
                .serverSideApply();
            applied.add(object);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + deployDir(), e);
    }
    return applied;
  }

  /**
   * Applies {@code deploy/kyverno/} and starts the aggregator as its Deployment describes; {@code
   * name} names its log and kubeconfig under {@code work}.
   */
  public static TallyBeside start(KubeTestEnv env, Path work, String name) {
    try (KubernetesClient admin = env.adminClient()) {
      List<HasMetadata> applied = applyManifests(admin);
      Deployment deployment =
          applied.stream()
              .filter(Deployment.class::isInstance)
              .map(Deployment.class::cast)
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("deploy/kyverno/ has no Deployment"));
      Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
      String account = deployment.getSpec().getTemplate().getSpec().getServiceAccountName();
      Files.createDirectories(work);
      Path kubeconfig = work.resolve(name + ".kubeconfig");
      Files.writeString(kubeconfig, env.serviceAccountKubeconfig(RealKyverno.NAMESPACE, account));
      int httpPort = ChildProcess.freePort();

      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      Quantity limit = container.getResources().getLimits().get("memory");
      for (String word : container.getCommand().subList(1, container.getCommand().size())) {
        if (word.startsWith("-XX:MaxRAMPercentage=") && limit != null) {
          // the JVM as it starts in the container: its memory is the limit, not this machine's,
          // for the heap's sizes (maximum and initial) and for the choice of collector, which in
          // a container under 1792 MiB is the serial one (JDK 17's "server class" rule)
          long bytes = Quantity.getAmountInBytes(limit).longValue();
          command.add(word);
          command.add("-XX:MaxRAM=" + bytes);
          if (bytes < 1792L * 1024 * 1024) {
            command.add("-XX:+UseSerialGC");
          }
        } else if (word.endsWith(".jar")) {
          command.addAll(extraJvmOptions());
          command.add(jar().toAbsolutePath().toString());
        } else {
          command.add(word);
        }
      }
      for (String arg : container.getArgs()) {
        if (!arg.startsWith("--http-port")) {
          command.add(arg);
        }
      }
      command.add("--http-port=" + httpPort);
      command.add("--kubeconfig=" + kubeconfig);
      ChildProcess process =
          ChildProcess.start(
              "tally-aggregator",
              command,
              Map.of("POD_NAME", deployment.getMetadata().getName() + "-" + name),
              ChildProcess.logFile(work, name),
              0);
      return new TallyBeside(process, httpPort);
    } catch (IOException e) {
      throw new UncheckedIOException("starting Tally's aggregator", e);
    }
  }

  /** The process: its log, CPU time and peak RSS. */
  public ChildProcess process() {
    return process;
  }

  /** Whether {@code /readyz} answers 200 (started, and rebuilt when it leads). */
  public boolean ready() {
    try {
      return process.isAlive() && get("/readyz").statusCode() == 200;
    } catch (UncheckedIOException e) {
      return false; // not listening yet
    }
  }

  /** The Prometheus text of {@code /metrics}. */
  public String metrics() {
    return get("/metrics").body();
  }

  private HttpResponse<String> get(String path) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + path + " of the aggregator", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Stops the aggregator as the kubelet would (SIGTERM: its graceful shutdown), then waits. */
  @Override
  public void close() {
    process.stop();
  }
}
