package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.TallyResources;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.testenv.Await;
import dev.tally.testenv.ChildProcess;
import dev.tally.testenv.GoTools;
import dev.tally.testenv.KubeTestEnv;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.opentest4j.TestAbortedException;

/**
 * The aggregator's image (target/tally-aggregator-image.tar, built by this module's package phase)
 * unpacked as a container runtime would, layer by layer, and its entrypoint run in that root file
 * system with {@code chroot} as the image's user: {@code --help}, then against a real API server
 * (kube-testenv) with a kubeconfig, where it aggregates a partial report. It checks the user, the
 * entrypoint, and that no shell, build tool or secret is inside, and prints the size.
 */
@ExtendWith(RealKubernetes.class)
class ImageIT {
  private static final Path TAR =
      Path.of(System.getProperty("tally.image.tar", "target/tally-aggregator-image.tar"));
  private static final Path WORK = Path.of(System.getProperty("user.dir"), "target", "image-it");

  /** Names that must not be in the image: shells, package managers, build tools. */
  private static final Set<String> TOOLS =
      Set.of(
          "sh", "bash", "dash", "busybox", "apt", "apt-get", "dpkg", "javac", "jlink", "jar",
          "jshell", "jdeps", "keytool", "mvn", "go", "gcc", "cc", "make", "curl", "wget");

  private static Unpacked unpacked;

  /** The image's root file system and its configuration. */
  record Unpacked(
      Path layout,
      String manifestDigest,
      Path root,
      Map<String, Object> config,
      long tarBytes,
      long rootBytes) {
    @SuppressWarnings("unchecked")
    Map<String, Object> container() {
      return (Map<String, Object>) config.get("config");
    }
  }

  static synchronized Unpacked unpacked() throws Exception {
    if (unpacked != null) {
      return unpacked;
    }
    // unpacking with the layers' owners and running chroot need root, as a container runtime does
    if (!isRoot()) {
      String why = "ImageIT unpacks the image and runs it with chroot, which need root";
      if (KubeTestEnv.required()) {
        throw new IllegalStateException(why + " (CI requires it)");
      }
      System.err.println("WARNING: SKIPPED the image's tests: " + why);
      throw new TestAbortedException(why);
    }
    assertThat(TAR).as("the image tar (./mvnw package builds it)").isRegularFile();
    Path layout = WORK.resolve("layout");
    Path root = WORK.resolve("root");
    for (Path dir : List.of(layout, root)) {
      run(List.of("rm", "-rf", dir.toString()));
      Files.createDirectories(dir);
    }
    run(List.of("tar", "-xf", TAR.toString(), "-C", layout.toString()));
    List<String> layers = new ArrayList<>();
    // an OCI image layout (oci-layout, index.json, blobs/sha256/…), as skopeo's oci-archive reads
    assertThat(layout.resolve("oci-layout")).content().contains("\"imageLayoutVersion\"");
    Map<?, ?> index = json(layout.resolve("index.json"));
    Map<?, ?> descriptor = (Map<?, ?>) ((List<?>) index.get("manifests")).get(0);
    Map<?, ?> manifest = json(blob(layout, descriptor));
    Map<String, Object> config = castMap(json(blob(layout, (Map<?, ?>) manifest.get("config"))));
    for (Object layer : (List<?>) manifest.get("layers")) {
      layers.add(blob(layout, (Map<?, ?>) layer).toString());
    }
    for (String layer : layers) {
      run(List.of("tar", "-xzf", layer, "-C", root.toString()));
    }
    long rootBytes;
    try (Stream<Path> files = Files.walk(root)) {
      rootBytes = files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
    unpacked =
        new Unpacked(
            layout, (String) descriptor.get("digest"), root, config, Files.size(TAR), rootBytes);
    System.out.printf(
        "image: %s, %.1f MB (%d layers); unpacked %.1f MB%n",
        TAR.getFileName(), Files.size(TAR) / 1e6, layers.size(), rootBytes / 1e6);
    return unpacked;
  }

  @Test
  void theImageRunsAsANonRootUserAndHoldsNoShellBuildToolOrSecret(RealKubernetes.Cluster cluster)
      throws Exception {
    Unpacked image = unpacked();
    // what the chart runs by default, so that docker run and the chart behave alike
    List<String> chartCommand =
        ChartRender.deployment()
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getCommand();
    assertThat(chartCommand).contains("-XX:TieredStopAtLevel=1", "/app/tally-aggregator.jar");
    assertThat(image.container())
        .containsEntry("User", "65532:65532")
        .containsEntry("Entrypoint", chartCommand);
    assertThat((List<Object>) image.container().get("Env")).contains("PATH=/opt/java/bin");
    assertThat(image.root().resolve("etc/passwd")).content().contains("nonroot:x:65532:65532:");

    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(image.root())) {
      for (Path p : files.toList()) {
        String name = p.getFileName().toString();
        if (TOOLS.contains(name)
            || Set.of(".m2", ".ssh", ".kube", ".gradle", ".git", ".docker").contains(name)
            || name.endsWith(".pem")
            || name.endsWith(".key")
            || name.contains("kubeconfig")
            || name.startsWith("id_rsa")) {
          found.add(image.root().relativize(p).toString());
        }
      }
    }
    assertThat(found).as("shells, tools or secrets in the image").isEmpty();
    assertThat(sha256(image.root().resolve("app/tally-aggregator.jar")))
        .as("the jar in the image is the one the aggregator module built")
        .isEqualTo(sha256(Path.of("../aggregator/target/tally-aggregator.jar")));
    // a bound to notice growth: the runtime is made of the modules the jar needs, not a JDK
    assertThat(image.tarBytes()).as("the image tar's size").isLessThan(150_000_000L);
  }

  /**
   * The step between the build and {@code helm install}: the image goes into a registry (here
   * go-containerregistry's, {@code crane registry serve}, built from kube-testenv's module) and the
   * registry serves the same manifest and configuration back.
   */
  @Test
  void theImageGoesIntoARegistryAndComesBackTheSame(RealKubernetes.Cluster cluster)
      throws Exception {
    Unpacked image = unpacked();
    Path crane = GoTools.build("crane", WORK.resolve("build-crane.log")).program("crane");
    int port = ChildProcess.freePort();
    String ref = "127.0.0.1:" + port + "/tally-aggregator:0.1.0-SNAPSHOT";
    try (ChildProcess registry =
        ChildProcess.start(
            "registry",
            List.of(crane.toString(), "registry", "serve", "--address", "127.0.0.1:" + port),
            Map.of(),
            ChildProcess.logFile(WORK, "registry"),
            0)) {
      Await.until(
          "the registry answers (" + registry.log() + ")",
          () -> status(port, "/v2/") == 200,
          Duration.ofSeconds(30));
      output(List.of(crane.toString(), "push", "--insecure", image.layout().toString(), ref));
      assertThat(output(List.of(crane.toString(), "digest", "--insecure", ref)).trim())
          .as("the digest the registry serves")
          .isEqualTo(image.manifestDigest());
      assertThat(
              Serialization.unmarshal(
                  output(List.of(crane.toString(), "config", "--insecure", ref)), Map.class))
          .as("the configuration the registry serves")
          .isEqualTo(image.config());
    }
  }

  @Test
  void theEntrypointAnswersHelpAsTheImagesUser(RealKubernetes.Cluster cluster) throws Exception {
    Unpacked image = unpacked();
    List<String> command = new ArrayList<>(chroot(image));
    command.add("--help");
    Path log = ChildProcess.logFile(WORK, "help");
    Process p = start(command, log);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(log)).isZero();
    assertThat(Files.readString(log)).contains("Usage: java -jar tally-aggregator.jar");
  }

  @Test
  void theImageAggregatesAgainstARealApiServer(RealKubernetes.Cluster cluster) throws Exception {
    Unpacked image = unpacked();
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    TallyResources.installCrds(admin);
    TallyResources.installClusterRoles(admin);
    KubernetesClient producer = cluster.serviceAccount("producer", "tally-producer");
    cluster.serviceAccount("aggregator", "tally-aggregator", "tally-aggregator-lease");
    // the kubeconfig inside the root file system, readable by the image's user
    Path kubeconfig = image.root().resolve("tmp").resolve(ns + ".kubeconfig");
    Files.writeString(kubeconfig, cluster.env().serviceAccountKubeconfig(ns, "aggregator"));
    Files.setPosixFilePermissions(kubeconfig, PosixFilePermissions.fromString("rw-r--r--"));
    int port = ChildProcess.freePort();
    List<String> command = new ArrayList<>(chroot(image));
    command.addAll(
        List.of(
            "--kubeconfig=/tmp/" + ns + ".kubeconfig",
            "--lease-namespace=" + ns,
            "--identity=from-the-image",
            "--flush-window=100ms",
            "--http-port=" + port));
    Path log = ChildProcess.logFile(WORK, "aggregator");
    Process p = start(command, log);
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(producer).build()) {
      Await.until(
          "/readyz of the aggregator in the image answers 200 (" + log + ")",
          () -> status(port, "/readyz") == 200,
          Duration.ofSeconds(120));
      // the same partial report and aggregate checks as the jar's own test
      AggregatorJarIT.publish(
          publisher, AggregatorJarIT.subject(admin, ns, "web-0"), "require-labels");
      Await.until(
          "the aggregator in the image has written the result (" + log + ")",
          () -> AggregatorJarIT.results(admin, ns) == 1,
          Duration.ofSeconds(120));
      assertThat(body(port, "/metrics"))
          .as("the aggregator in the image counts its write")
          .containsPattern("(?m)^tally_writes_total\\{verb=\"create\"\\} [1-9]");
    } finally {
      p.destroy(); // SIGTERM: chroot has exec'd java, which stops gracefully
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(Files.readString(log)).isTrue();
      Files.deleteIfExists(kubeconfig);
    }
    assertThat(p.exitValue()).as(Files.readString(log)).isZero();
    assertThat(Files.readString(log)).doesNotContain("\tat ", "ERROR");
  }

  /**
   * The image's entrypoint run in its root file system as its user, with only its environment: the
   * entrypoint's {@code java} is found through the image's PATH, inside the image. As a container
   * runtime does, {@code /proc} and {@code /dev} are mounted into it first (the dynamic loader
   * finds the runtime's libraries through {@code /proc/self/exe}), in a mount namespace of its own
   * that ends with the process. Each step execs the next, so the process is the JVM itself.
   */
  private static List<String> chroot(Unpacked image) throws IOException {
    Path root = image.root();
    Files.createDirectories(root.resolve("proc")); // mount points, as a runtime makes them
    Files.createDirectories(root.resolve("dev"));
    List<String> command =
        new ArrayList<>(
            List.of(
                "unshare",
                "--mount",
                "--propagation",
                "private",
                "sh",
                "-c",
                "mount -t proc proc \"$0/proc\" && mount --rbind /dev \"$0/dev\" && exec \"$@\"",
                root.toString(),
                "env",
                "-i"));
    for (Object env : (List<?>) image.container().get("Env")) {
      command.add((String) env);
    }
    command.addAll(
        List.of(
            chrootProgram(),
            "--userspec=" + image.container().get("User"),
            image.root().toString()));
    for (Object word : (List<?>) image.container().get("Entrypoint")) {
      command.add((String) word);
    }
    return command;
  }

  private static String chrootProgram() {
    for (String candidate : List.of("/usr/sbin/chroot", "/usr/bin/chroot", "/sbin/chroot")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    throw new IllegalStateException("no chroot on this machine (coreutils)");
  }

  private static boolean isRoot() throws IOException {
    Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    return Integer.valueOf(0).equals(uid);
  }

  private static Process start(List<String> command, Path log) throws IOException {
    Files.createDirectories(log.getParent());
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    p.getOutputStream().close();
    return p;
  }

  private static String body(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static int status(int port, String path) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1; // not listening yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static String output(List<String> command) throws Exception {
    Path err = Files.createTempFile(Files.createDirectories(WORK), "stderr", ".log");
    Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command) + ": " + Files.readString(err)).isZero();
    return out;
  }

  private static void run(List<String> command) throws Exception {
    output(command);
  }

  /**
   * The file of a descriptor's blob, checked as a registry checks what is pushed to it: its
   * content's sha256 is its digest and its length its size.
   */
  private static Path blob(Path layout, Map<?, ?> descriptor) throws Exception {
    String digest = (String) descriptor.get("digest");
    assertThat(digest).startsWith("sha256:");
    Path file =
        layout.resolve("blobs").resolve("sha256").resolve(digest.substring("sha256:".length()));
    assertThat(file).as("the blob of %s", descriptor).isRegularFile();
    assertThat("sha256:" + sha256(file)).as("the digest of %s", file).isEqualTo(digest);
    assertThat(Files.size(file))
        .as("the size of %s", file)
        .isEqualTo(((Number) descriptor.get("size")).longValue());
    return file;
  }

  private static Map<?, ?> json(Path file) throws IOException {
    return (Map<?, ?>) jsonValue(file);
  }

  private static Object jsonValue(Path file) throws IOException {
    return Serialization.unmarshal(Files.readString(file), Object.class);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Map<?, ?> map) {
    return (Map<String, Object>) map;
  }

  private static String sha256(Path file) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }
}
