package dev.tally.report.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The binding links to no fabric8 or Jackson class (only to Tally's SPI, report-api and
 * Micrometer), so the same jar serves report-fabric8 on fabric8 7.x (Jackson 2) and 8.x (Jackson
 * 3). Read from the compiled classes: a class name in a signature or a constant pool counts, an
 * import of an unused type does not.
 */
class FabricLineIndependenceTest {
  private static final List<String> FORBIDDEN =
      List.of("io/fabric8/", "com/fasterxml/jackson/", "tools/jackson/");

  @Test
  void theCompiledBindingNamesNoFabric8OrJacksonClass() throws IOException, URISyntaxException {
    Path classes =
        Path.of(
            MicrometerTallyMetrics.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    List<Path> files;
    try (Stream<Path> walk = Files.walk(classes)) {
      files = walk.filter(p -> p.toString().endsWith(".class")).toList();
    }
    assertThat(files).anyMatch(p -> p.endsWith("MicrometerTallyMetrics.class"));
    List<String> offences = new ArrayList<>();
    for (Path file : files) {
      String constants = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
      for (String prefix : FORBIDDEN) {
        if (constants.contains(prefix)) {
          offences.add(classes.relativize(file) + " names " + prefix);
        }
      }
    }
    assertThat(offences).isEmpty();
  }
}
