package dev.tally.aggregator;

import dev.tally.testenv.GoTools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus's own programs, {@code promtool} and {@code prometheus}, built from kube-testenv's
 * module on first use (minutes, cold; nothing when cached per machine), and the chart's alerting
 * rules they read.
 */
final class PrometheusTools {
  /** The rules as the chart ships them (and as a plain rule file). */
  static final Path RULES =
      ChartFilesTest.chartDir().resolve("files/alerts/tally-aggregator.rules.yaml");

  private static GoTools.Built built;

  private PrometheusTools() {}

  static synchronized GoTools.Built built() {
    if (built == null) {
      built =
          GoTools.build(
              "prometheus",
              Path.of(System.getProperty("user.dir"), "target", "prometheus", "build.log"));
    }
    return built;
  }

  /** What one run of promtool printed (stdout and stderr) and how it ended. */
  record Run(int exit, String output) {}

  static Run promtool(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(built().program("promtool").toString());
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "promtool", ".out");
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    p.getOutputStream().close();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("promtool " + String.join(" ", args) + " ran over 120 s");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }
}
