package dev.tally.report.fabric8;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The official CRDs and published sample reports kept in this module's test resources ({@code
 * src/test/resources/crds} and {@code …/samples}, each with a README naming where every file comes
 * from and its licence).
 */
public final class TestResources {
  private TestResources() {}

  public static String crd(String file) {
    return read("crds/" + file);
  }

  public static String sample(String file) {
    return read("samples/" + file);
  }

  public static String read(String path) {
    try (InputStream in = TestResources.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("no test resource " + path + " on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("reading test resource " + path, e);
    }
  }
}
