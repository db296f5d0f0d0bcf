package dev.tally.testenv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Real Helm, built from kube-testenv's Go module (its {@code tool}) once per machine (like
 * kube-testenv), run as a cluster admin runs it: {@code helm lint}, {@code helm template}, and
 * against a cluster (a kubeconfig) {@code helm install}, {@code upgrade} and {@code uninstall}.
 * Helm's cache, configuration and data live under the work directory, not the user's home.
 */
public final class Helm {
  private static final long TIMEOUT_SECONDS = 180;

  private final Path binary;
  private final Path work;
  private final @Nullable Path kubeconfig;

  private Helm(Path binary, Path work, @Nullable Path kubeconfig) {
    this.binary = binary;
    this.work = work;
    this.kubeconfig = kubeconfig;
  }

  /**
   * Helm, built first when this machine has no build of it; logs and Helm's home go to {@code
   * work}.
   */
  public static Helm build(Path work) {
    return new Helm(
        GoTools.build("helm", work.resolve("build-helm.log")).program("helm"), work, null);
  }

  /** The same Helm, talking to the cluster of {@code kubeconfig}. */
  public Helm against(Path kubeconfig) {
    return new Helm(binary, work, kubeconfig);
  }

  public Path binary() {
    return binary;
  }

  /** What one run of Helm printed and how it ended. */
  public record Run(List<String> args, int exit, String out, String err) {
    public boolean ok() {
      return exit == 0;
    }
  }

  /** Runs Helm with {@code args} in {@code dir}, whatever its exit code. */
  public Run run(Path dir, String... args) {
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.addAll(List.of(args));
    try {
      Files.createDirectories(work);
      Path out = ChildProcess.logFile(work, "helm-" + args[0] + "-out");
      Path err = ChildProcess.logFile(work, "helm-" + args[0] + "-err");
      ProcessBuilder pb =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile());
      pb.environment().put("HELM_CACHE_HOME", work.resolve("helm-home/cache").toString());
      pb.environment().put("HELM_CONFIG_HOME", work.resolve("helm-home/config").toString());
      pb.environment().put("HELM_DATA_HOME", work.resolve("helm-home/data").toString());
      if (kubeconfig != null) {
        pb.environment().put("KUBECONFIG", kubeconfig.toString());
      } else {
        pb.environment().remove("KUBECONFIG");
      }
      Process p = pb.start();
      p.getOutputStream().close();
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(
            "helm " + String.join(" ", args) + " took over " + TIMEOUT_SECONDS + " s");
      }
      return new Run(
          List.of(args),
          p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("running helm " + String.join(" ", args), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running helm " + String.join(" ", args), e);
    }
  }

  /** Runs Helm and returns what it printed; fails with what it printed on error when it fails. */
  public String ok(Path dir, String... args) {
    Run run = run(dir, args);
    if (!run.ok()) {
      throw new IllegalStateException(
          "helm " + String.join(" ", args) + " failed (exit " + run.exit() + "): " + run.err());
    }
    return run.out();
  }
}
