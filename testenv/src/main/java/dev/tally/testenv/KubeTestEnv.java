package dev.tally.testenv;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One real Kubernetes control plane per test JVM: the {@code kube-testenv} program of this
 * repository (an embedded etcd, a real kube-apiserver with RBAC, an audit log and flow control, and
 * the garbage-collector and namespace controllers), built from Kubernetes' own Go modules by {@code
 * kube-testenv/build.sh} (cached per machine) and started on loopback on first use.
 *
 * <p>The program exits when its standard input closes, so it never outlives this JVM.
 */
public final class KubeTestEnv {
  /** {@code READY kubeconfig=<path> audit=<path> server=<url>}, printed once when ready. */
  private static final Pattern READY =
      Pattern.compile("^READY kubeconfig=(\\S+) audit=(\\S+) server=(\\S+)$");

  private static final long START_TIMEOUT_SECONDS = 300;
  private static final long BUILD_TIMEOUT_MINUTES = 45;

  private static @Nullable KubeTestEnv shared;
  private static @Nullable RuntimeException failedToStart;

  private final Process process;
  private final OutputStream commands;

  /** Lines the program prints after READY: answers to commands. */
  private final BlockingQueue<String> output;

  private final Path kubeconfig;
  private final Path auditLog;
  private final String server;

  private KubeTestEnv(
      Process process,
      BlockingQueue<String> output,
      Path kubeconfig,
      Path auditLog,
      String server) {
    this.process = process;
    this.output = output;
    this.commands = process.getOutputStream();
    this.kubeconfig = kubeconfig;
    this.auditLog = auditLog;
    this.server = server;
  }

  /** Why the real control plane cannot run on this machine, or empty when it can. */
  public static @Nullable String unavailableBecause() {
    if (GoTools.executableOnPath("go") == null) {
      return "Go is not on the PATH (the control plane is built from Kubernetes' Go modules;"
          + " install Go 1.26.7 or later, e.g. the golang package of your distribution)";
    }
    if (repositoryRoot() == null) {
      return "kube-testenv/build.sh not found above " + System.getProperty("user.dir");
    }
    return null;
  }

  /**
   * Whether a missing control plane fails the build instead of skipping: under CI ({@code CI=true})
   * or with {@code -Dtally.kube=required}.
   */
  public static boolean required() {
    return "true".equalsIgnoreCase(System.getenv("CI"))
        || "required".equals(System.getProperty("tally.kube"));
  }

  /** The control plane of this JVM, built and started on first use. */
  public static synchronized KubeTestEnv shared() {
    if (shared != null) {
      return shared;
    }
    if (failedToStart != null) {
      throw failedToStart;
    }
    try {
      shared = start();
      return shared;
    } catch (RuntimeException e) {
      failedToStart = e;
      throw e;
    }
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The API server's audit log: one JSON event per line, every request. */
  public Path auditLog() {
    return auditLog;
  }

  public String server() {
    return server;
  }

  /** Client configuration as the admin (system:masters), with a 60 s request timeout. */
  public Config adminConfig() {
    try {
      Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
      // fabric8's own retries stay on: a real server answers 429 "storage is (re)initializing"
      // for a while after a CRD is created, which a test's own requests should ride out
      config.setRequestTimeout(60_000);
      return config;
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + kubeconfig, e);
    }
  }

  /** A new admin client; the caller closes it. */
  public KubernetesClient adminClient() {
    return new KubernetesClientBuilder().withConfig(adminConfig()).build();
  }

  /**
   * A new client that authenticates with {@code token} (a service account's); the caller closes.
   */
  public KubernetesClient clientWithToken(String token) {
    Config config = adminConfig();
    config.setOauthToken(token);
    config.setUsername(null);
    config.setPassword(null);
    config.setClientCertData(null);
    config.setClientKeyData(null);
    config.setAutoOAuthToken(token);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /**
   * A kubeconfig (YAML) for this control plane that authenticates as the ServiceAccount {@code
   * namespace/account}, with a token from the TokenRequest API valid for a day: what a program of a
   * test runs with when it must have exactly that account's rights.
   */
  public String serviceAccountKubeconfig(String namespace, String account) {
    Config config = adminConfig();
    try (KubernetesClient admin = new KubernetesClientBuilder().withConfig(config).build()) {
      String token =
          admin
              .serviceAccounts()
              .inNamespace(namespace)
              .withName(account)
              .tokenRequest(
                  new io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder()
                      .withNewSpec()
                      .withExpirationSeconds(24 * 3600L)
                      .endSpec()
                      .build())
              .getStatus()
              .getToken();
      String ca = config.getCaCertData();
      if (ca == null) {
        ca =
            java.util.Base64.getEncoder()
                .encodeToString(Files.readAllBytes(Path.of(config.getCaCertFile())));
      }
      String user = "system:serviceaccount:" + namespace + ":" + account;
      return String.join(
          "\n",
          "apiVersion: v1",
          "kind: Config",
          "clusters:",
          "- name: kube-testenv",
          "  cluster:",
          "    server: " + server,
          "    certificate-authority-data: " + ca,
          "users:",
          "- name: " + user,
          "  user:",
          "    token: " + token,
          "contexts:",
          "- name: kube-testenv",
          "  context:",
          "    cluster: kube-testenv",
          "    user: " + user,
          "    namespace: " + namespace,
          "current-context: kube-testenv",
          "");
    } catch (IOException e) {
      throw new UncheckedIOException("reading the control plane's CA", e);
    }
  }

  /**
   * Compacts etcd at its current revision, so that every older continue token and watch
   * resourceVersion expires (a real 410 Gone).
   */
  public synchronized void compactEtcd() {
    String reply = command("compact");
    if (!reply.startsWith("compacted ")) {
      throw new IllegalStateException("kube-testenv did not compact: " + reply);
    }
  }

  private String command(String line) {
    try {
      commands.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      commands.flush();
      String reply = output.poll(60, TimeUnit.SECONDS);
      if (reply == null) {
        throw new IllegalStateException("kube-testenv did not answer '" + line + "' in 60 s");
      }
      return reply;
    } catch (IOException e) {
      throw new UncheckedIOException("writing to kube-testenv", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for kube-testenv", e);
    }
  }

  private static KubeTestEnv start() {
    String why = unavailableBecause();
    if (why != null) {
      throw new IllegalStateException("no real control plane: " + why);
    }
    Path root = repositoryRoot();
    Path logs = Path.of(System.getProperty("user.dir"), "target", "kube-testenv");
    try {
      Files.createDirectories(logs);
      // per process: a module's tests may run in two forks, each with a control plane of its own
      long pid = ProcessHandle.current().pid();
      Path binary = build(root, logs.resolve("build-" + pid + ".log"));
      List<String> command = new ArrayList<>(List.of(binary.toString(), "--dir", logs.toString()));
      // CRDs installed before the controller manager starts, so that its garbage collector knows
      // them at once (it rediscovers kinds only every 30 s): the official report CRDs and Tally's
      for (Path crds :
          List.of(
              root.resolve("report-fabric8/src/test/resources/crds"),
              root.resolve("report-fabric8/src/main/resources/META-INF/tally/crds"))) {
        if (Files.isDirectory(crds)) {
          command.add("--crd");
          command.add(crds.toString());
        }
      }
      // no watch cache for Tally's partial reports: a watch on them is served by etcd, so a
      // compaction really expires a watch that reconnects from an old resourceVersion (with the
      // cache, such a watch is served from the cache's window and never expires in a test)
      command.add(
          "--apiserver-arg=--watch-cache-sizes="
              + "partialreports.tally.dev#0,clusterpartialreports.tally.dev#0");
      // one audit log file for the whole run: AuditLog's marks are offsets into it, and the API
      // server would otherwise rotate it at 100 MB (its log writer's default), which a run with
      // thousands of Pods passes (the side-by-side script's 5,000 did)
      command.add("--apiserver-arg=--audit-log-maxsize=1048576");
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.redirectError(logs.resolve("kube-testenv-" + pid + ".log").toFile());
      Process process = pb.start();
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      BlockingQueue<String> lines = new LinkedBlockingQueue<>();
      Thread reader =
          new Thread(
              () -> {
                try {
                  for (String l; (l = out.readLine()) != null; ) {
                    lines.add(l);
                  }
                } catch (IOException ignored) {
                  // the process ended; its log says why
                }
              },
              "kube-testenv-stdout");
      reader.setDaemon(true);
      reader.start();
      long deadline = START_TIMEOUT_SECONDS * 10;
      for (long tick = 0; tick < deadline; tick++) {
        String line = lines.poll(100, TimeUnit.MILLISECONDS);
        if (line != null) {
          Matcher m = READY.matcher(line);
          if (m.matches()) {
            KubeTestEnv env =
                new KubeTestEnv(
                    process, lines, Path.of(m.group(1)), Path.of(m.group(2)), m.group(3));
            Runtime.getRuntime().addShutdownHook(new Thread(env::stop, "kube-testenv-stop"));
            return env;
          }
        }
        if (!process.isAlive() && lines.isEmpty()) {
          break;
        }
      }
      process.destroyForcibly();
      throw new IllegalStateException(
          "kube-testenv did not become ready in "
              + START_TIMEOUT_SECONDS
              + " s; its log: "
              + logs.resolve("kube-testenv-" + pid + ".log"));
    } catch (IOException e) {
      throw new UncheckedIOException("starting kube-testenv", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted starting kube-testenv", e);
    }
  }

  private void stop() {
    try {
      commands.close(); // the program exits when its standard input closes
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (IOException | InterruptedException e) {
      process.destroyForcibly();
    }
  }

  /** Runs the cached build; its last line of output is the binary's path. */
  private static Path build(Path root, Path log) throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder("bash", root.resolve("kube-testenv/build.sh").toString())
            .directory(root.resolve("kube-testenv").toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.putIfAbsent("GOFLAGS", "-buildvcs=false");
    Process p = pb.start();
    p.getOutputStream().close();
    if (!p.waitFor(BUILD_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException("building kube-testenv took over 45 min; see " + log);
    }
    List<String> lines = new ArrayList<>(Files.readAllLines(log));
    if (p.exitValue() != 0 || lines.isEmpty()) {
      throw new IllegalStateException(
          "building kube-testenv failed (exit " + p.exitValue() + "); see " + log);
    }
    Path binary = Path.of(lines.get(lines.size() - 1).trim());
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException("kube-testenv/build.sh did not name a binary; see " + log);
    }
    return binary;
  }

  private static @Nullable Path repositoryRoot() {
    Path root = GoTools.repositoryRoot();
    return root != null && Files.isRegularFile(root.resolve("kube-testenv/build.sh")) ? root : null;
  }
}
