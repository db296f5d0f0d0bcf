package dev.tally.testenv;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Other projects' Go programs the tests run, built by {@code go-tools/build.sh} once per machine
 * and cached, like kube-testenv: Kyverno's and Gatekeeper's own binaries from {@code
 * go-tools/engines} (one module, so a cold build compiles what they share once); Helm, crane,
 * promtool and Prometheus, which are {@code tool}s of kube-testenv's own module (one set of
 * versions with the API server's, for the same reason).
 */
public final class GoTools {
  private static final long BUILD_TIMEOUT_MINUTES = 50;

  private GoTools() {}

  /** Why Go tools cannot be built on this machine, or empty when they can. */
  public static @Nullable String unavailableBecause() {
    if (executableOnPath("go") == null) {
      return "Go is not on the PATH (Kyverno, Gatekeeper, Helm and Prometheus are built from Go modules;"
          + " install Go 1.26.7 or later)";
    }
    if (repositoryRoot() == null) {
      return "go-tools/build.sh not found above " + System.getProperty("user.dir");
    }
    return null;
  }

  /**
   * The cache directory holding the program {@code module} names ({@code kyverno} or {@code
   * gatekeeper}, the policy engines, built together; {@code helm}, {@code crane} or {@code
   * prometheus}, which name kube-testenv's tools, all four in one directory), with the source of
   * the module it comes from, built first when the cache has none (minutes, cold); its build log
   * goes to {@code log}.
   */
  public static synchronized Built build(String module, Path log) {
    Path root = repositoryRoot();
    if (root == null) {
      throw new IllegalStateException(unavailableBecause());
    }
    try {
      Files.createDirectories(log.getParent());
      ProcessBuilder pb =
          new ProcessBuilder("bash", root.resolve("go-tools/build.sh").toString(), module)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      pb.environment().putIfAbsent("GOFLAGS", "-buildvcs=false");
      Process p = pb.start();
      p.getOutputStream().close();
      if (!p.waitFor(BUILD_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException(
            "building "
                + module
                + " (go-tools/build.sh) took over "
                + BUILD_TIMEOUT_MINUTES
                + " min; "
                + log);
      }
      List<String> lines = new ArrayList<>(Files.readAllLines(log));
      if (p.exitValue() != 0 || lines.isEmpty()) {
        throw new IllegalStateException(
            "building "
                + module
                + " (go-tools/build.sh) failed (exit "
                + p.exitValue()
                + "); see "
                + log);
      }
      Path dir = Path.of(lines.get(lines.size() - 1).trim());
      Path moduleDir = Path.of(Files.readString(dir.resolve("module-dir." + module)).trim());
      return new Built(dir, moduleDir);
    } catch (IOException e) {
      throw new IllegalStateException(
          "building " + module + " (go-tools/build.sh): " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted building " + module, e);
    }
  }

  /**
   * A built module: {@code dir} holds its programs; {@code moduleDir} is the source of the module
   * they come from, as the Go module proxy served it (read-only).
   */
  public record Built(Path dir, Path moduleDir) {
    public Path program(String name) {
      Path p = dir.resolve(name);
      if (!Files.isExecutable(p)) {
        throw new IllegalStateException(p + " is missing from the build");
      }
      return p;
    }
  }

  static @Nullable Path repositoryRoot() {
    for (Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        d != null;
        d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("go-tools").resolve("build.sh"))) {
        return d;
      }
    }
    return null;
  }

  static @Nullable Path executableOnPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }
}
