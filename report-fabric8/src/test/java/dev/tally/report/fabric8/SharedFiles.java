package dev.tally.report.fabric8;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the project's {@code shared/} folder (official CRDs and sample reports). CI clones the
 * repository next to it, a developer may have it inside: walk up from the working directory until a
 * {@code shared/crds} folder appears.
 */
final class SharedFiles {
  private SharedFiles() {}

  static Path root() {
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve("shared").resolve("crds"))) {
        return d.resolve("shared");
      }
    }
    throw new IllegalStateException(
        "no shared/crds folder found in "
            + dir
            + " or any parent: the official CRDs and samples must be checked out next to the"
            + " repository (../shared)");
  }

  static Path crd(String file) {
    return root().resolve("crds").resolve(file);
  }

  static Path sample(String file) {
    return root().resolve("samples").resolve(file);
  }
}
