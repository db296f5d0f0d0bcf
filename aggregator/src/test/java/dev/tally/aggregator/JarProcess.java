package dev.tally.aggregator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The built {@code tally-aggregator.jar} run as a child process ({@code java -jar}), its standard
 * output and error in files under target/, and its HTTP endpoints. Public for the hostile-tenant
 * harness ({@code dev.tally.aggregator.hostile}).
 */
public final class JarProcess implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public final Process process;
  private final Path stdout;
  private final Path stderr;
  private final int httpPort;

  private JarProcess(Process process, Path stdout, Path stderr, int httpPort) {
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
    this.httpPort = httpPort;
  }

  public static Path jar() {
    Path jar = Path.of(System.getProperty("tally.aggregator.jar", "target/tally-aggregator.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar + " is missing: these tests run after `package` (./mvnw verify)");
    }
    return jar;
  }

  /** Starts the jar with {@code args}; {@code httpPort} is the one passed in them, or 0. */
  public static JarProcess start(String name, int httpPort, String... args) {
    return start(name, httpPort, List.of(), args);
  }

  /** Starts the jar with {@code jvmOptions} before {@code -jar} and {@code args} after it. */
  public static JarProcess start(
      String name, int httpPort, List<String> jvmOptions, String... args) {
    try {
      Path logs = Files.createDirectories(Path.of("target", "jar-runs"));
      Path out = logs.resolve(name + ".out");
      Path err = logs.resolve(name + ".err");
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmOptions);
      command.add("-jar");
      command.add(jar().toString());
      command.addAll(List.of(args));
      ProcessBuilder pb =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .redirectInput(ProcessBuilder.Redirect.PIPE);
      // the identity must come from the flags or the defaults of the test, not the CI's pod
      pb.environment().remove("POD_NAME");
      pb.environment().remove("KUBECONFIG");
      Process process = pb.start();
      // a test JVM stopped mid-run (Maven interrupted, a fork timed out) leaves no aggregator
      // running behind it
      Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
      return new JarProcess(process, out, err, httpPort);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits for the process to end, at most {@code timeout}; its exit code. */
  public int waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(
          "the aggregator did not exit within " + timeout + "; its output:\n" + output());
    }
    return process.exitValue();
  }

  public String stdout() {
    return read(stdout);
  }

  public String stderr() {
    return read(stderr);
  }

  /** How many bytes the process has written to its stdout and stderr so far. */
  public long logBytes() {
    try {
      return (Files.exists(stdout) ? Files.size(stdout) : 0)
          + (Files.exists(stderr) ? Files.size(stderr) : 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Both streams, for failure messages. */
  public String output() {
    return "--- stdout\n" + stdout() + "--- stderr\n" + stderr();
  }

  /** GET of {@code path} on the HTTP port: the status, or -1 when nothing answers. */
  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  public int status(String path) {
    try {
      return get(path).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
