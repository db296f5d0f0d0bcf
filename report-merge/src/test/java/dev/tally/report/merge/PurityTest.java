package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The pure modules stay pure: no Kubernetes client, no I/O, no clock, no threads, no randomness of
 * their own. Checked on the sources of report-api, report-merge and report-audit.
 */
class PurityTest {
  private static final Pattern FORBIDDEN =
      Pattern.compile(
          "io\\.fabric8|java\\.io\\.(File|InputStream|OutputStream|Reader|Writer|PrintStream)"
              + "|java\\.nio\\.file|java\\.net\\.|System\\.(currentTimeMillis|nanoTime|out|err)"
              + "|Instant\\.now|LocalDateTime\\.now|Clock\\.system|new Thread|Executors\\."
              + "|Math\\.random|new Random\\(|ThreadLocalRandom");

  @Test
  void pureModulesImportNoClientAndDoNoIoAndReadNoClock() throws IOException {
    Path merge = Path.of("src/main/java");
    Path api = Path.of("../report-api/src/main/java");
    Path audit = Path.of("../report-audit/src/main/java");
    assertThat(merge).isDirectory();
    assertThat(api).isDirectory();
    assertThat(audit).isDirectory();
    List<String> offences = new ArrayList<>();
    for (Path root : List.of(api, merge, audit)) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          List<String> lines = Files.readAllLines(file);
          for (int i = 0; i < lines.size(); i++) {
            if (FORBIDDEN.matcher(lines.get(i)).find()) {
              offences.add(file + ":" + (i + 1) + ": " + lines.get(i).trim());
            }
          }
        }
      }
    }
    assertThat(offences).isEmpty();
  }
}
