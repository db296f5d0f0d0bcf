package dev.tally.report.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.testenv.RealKubernetes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The demo runs end to end on a small cluster and prints what the README promises: on the mock API
 * server, and on the real control plane (skipped loudly without Go, required under CI).
 */
class DemoTest {

  @Test
  void runsEndToEndOnTheMockServerAndPrintsTheReportsAndTheRequests() throws Exception {
    String out;
    try (DemoCluster cluster = DemoCluster.mock("test")) {
      out = run(cluster);
    }
    assertThat(out).contains("Tally demo on fabric8's mock API server");
    assertPrintsWhatTheReadmePromises(out);
  }

  @Test
  @ExtendWith(RealKubernetes.class)
  void runsEndToEndOnTheRealControlPlane(RealKubernetes.Cluster cluster) throws Exception {
    String out = run(DemoCluster.real(cluster.env()));
    assertThat(out)
        .contains("Tally demo on a real Kubernetes control plane")
        .contains("the garbage collector removes");
    assertPrintsWhatTheReadmePromises(out);
  }

  private static String run(DemoCluster cluster) throws Exception {
    var bytes = new ByteArrayOutputStream();
    new Demo(new PrintStream(bytes, true, StandardCharsets.UTF_8), 2, 6).run(cluster);
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static void assertPrintsWhatTheReadmePromises(String out) {
    // not a terminal: no line redrawn with carriage returns, one line per phase
    assertThat(out).doesNotContain("\r");
    assertThat(out.lines().filter(l -> l.matches(" *[0-9.]+s  .*")))
        .anyMatch(l -> l.endsWith("installing CRDs"))
        .anyMatch(l -> l.endsWith("steady state: same evaluations again, resync"));
    assertThat(out.lines().mapToInt(String::length).max().orElse(0)).isLessThan(200);
    assertThat(out)
        .contains("NAMESPACE  NAME", "SCOPE", "PASS  FAIL  WARN ERROR  SKIP")
        .contains("team-0     tally-namespace-all", "team-1     tally-namespace-all")
        .contains("aggregator", "producers", "create=")
        .contains("(require-probes removed)")
        .contains("steady state: 0 writes");
  }
}
