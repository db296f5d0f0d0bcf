package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The built jar's command line, without any API server. */
class JarCommandLineIT {
  @Test
  void helpPrintsEveryFlagAndExitsZero() throws Exception {
    try (JarProcess jar = JarProcess.start("help", 0, "--help")) {
      assertThat(jar.waitFor(Duration.ofSeconds(60))).as(jar.output()).isZero();
      for (String flag : OptionsTest.FLAGS) {
        assertThat(jar.stdout()).as(flag).contains(flag);
      }
      assertThat(jar.stderr()).isEmpty();
    }
  }

  @Test
  void anUnknownFlagOrABadValueExitsTwoWithOneLineNamingTheFlag() throws Exception {
    try (JarProcess jar =
        JarProcess.start("unknown-flag", 0, "--grouping", "per-namespace", "--bogus")) {
      assertThat(jar.waitFor(Duration.ofSeconds(60))).as(jar.output()).isEqualTo(2);
      assertThat(jar.stderr()).isEqualTo("tally-aggregator: --bogus: unknown flag (see --help)\n");
    }
    try (JarProcess jar = JarProcess.start("bad-value", 0, "--format", "yaml")) {
      assertThat(jar.waitFor(Duration.ofSeconds(60))).as(jar.output()).isEqualTo(2);
      assertThat(jar.stderr())
          .isEqualTo(
              "tally-aggregator: --format: unknown format 'yaml', expected wgpolicy or"
                  + " openreports\n");
    }
    try (JarProcess jar =
        JarProcess.start(
            "bad-cipher-order", 0, List.of("-Dtally.tls.cipher-order=aes-first"), "--qps", "5")) {
      assertThat(jar.waitFor(Duration.ofSeconds(60))).as(jar.output()).isEqualTo(2);
      assertThat(jar.stderr())
          .isEqualTo(
              "tally-aggregator: -Dtally.tls.cipher-order=aes-first: not an order; chacha20-first"
                  + " or client-default\n");
    }
  }

  /**
   * An API server nobody listens on: the jar exits 1 within the retries' bound (6 attempts, about 6
   * s of backoff), with one line that names the server and the network's reason, and no stack
   * trace.
   */
  @Test
  void anUnreachableApiServerExitsNonZeroQuicklyNamingTheServer(@TempDir Path dir)
      throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    } // closed: nothing listens there now
    String server = "https://127.0.0.1:" + port;
    Path kubeconfig =
        Files.writeString(
            dir.resolve("kubeconfig"),
            String.join(
                "\n",
                "apiVersion: v1",
                "kind: Config",
                "clusters:",
                "- name: nowhere",
                "  cluster:",
                "    server: " + server,
                "    insecure-skip-tls-verify: true",
                "users:",
                "- name: someone",
                "  user:",
                "    token: not-a-token",
                "contexts:",
                "- name: nowhere",
                "  context:",
                "    cluster: nowhere",
                "    user: someone",
                "current-context: nowhere",
                ""));
    try (JarProcess jar =
        JarProcess.start(
            "unreachable", 0, "--kubeconfig", kubeconfig.toString(), "--http-port", "0")) {
      // bounded by the retries: a jar that has not exited within 30 s fails the wait
      int code = jar.waitFor(Duration.ofSeconds(30));

      assertThat(code).as(jar.output()).isEqualTo(1);
      String error =
          jar.stderr()
              .lines()
              .filter(l -> l.startsWith("tally-aggregator: "))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no error line:\n" + jar.output()));
      assertThat(error)
          .contains("cannot start against the API server at " + server)
          .contains("Connection refused");
      assertThat(jar.output()).as("no stack trace").doesNotContain("\tat ", "Exception:");
    }
  }

  @Test
  void aKubeconfigThatIsNotOneIsNamed(@TempDir Path dir) throws IOException, InterruptedException {
    Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), "{ not: [ yaml\n");
    try (JarProcess jar =
        JarProcess.start("bad-kubeconfig", 0, "--kubeconfig", kubeconfig.toString())) {
      assertThat(jar.waitFor(Duration.ofSeconds(60))).as(jar.output()).isEqualTo(1);
      assertThat(jar.stderr()).startsWith("tally-aggregator: --kubeconfig " + kubeconfig + ": ");
      assertThat(jar.output()).doesNotContain("\tat ");
    }
  }
}
