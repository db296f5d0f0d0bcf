package dev.tally.report.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The demo runs end to end on a small cluster and prints what the README promises. */
class DemoTest {

  @Test
  void runsEndToEndAndPrintsTheReportsAndTheRequests() throws Exception {
    var bytes = new ByteArrayOutputStream();
    new Demo(new PrintStream(bytes, true, StandardCharsets.UTF_8), 2, 6).run();
    String out = bytes.toString(StandardCharsets.UTF_8);

    assertThat(out)
        .contains("NAMESPACE  NAME", "SCOPE", "PASS  FAIL  WARN ERROR  SKIP")
        .contains("team-0     tally-namespace-all", "team-1     tally-namespace-all")
        .contains("aggregator", "producers", "create=")
        .contains("(require-probes removed)")
        .contains("steady state: 0 writes");
  }
}
