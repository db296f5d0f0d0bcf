package dev.tally.testenv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A program of a test (one of Kyverno's, Tally's aggregator jar) running as a child process of this
 * JVM, its output in a log file and stopped when the JVM ends; what it costs the machine is read
 * from {@code /proc} (Linux).
 */
public final class ChildProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path log;
  private final int webhookPort;
  private final List<String> command;

  private ChildProcess(
      String name, Process process, Path log, int webhookPort, List<String> command) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.webhookPort = webhookPort;
    this.command = List.copyOf(command);
  }

  /**
   * Starts {@code command} with {@code environment} added to this JVM's (and {@code KUBECONFIG}
   * removed), both output streams in {@code log}. {@code httpsHealthPort}, when not 0, is where
   * {@link #ready} asks {@code /health/readiness} over TLS (Kyverno's webhook server).
   */
  public static ChildProcess start(
      String name,
      List<String> command,
      Map<String, String> environment,
      Path log,
      int httpsHealthPort) {
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.environment().remove("KUBECONFIG");
      pb.environment().putAll(environment);
      pb.redirectErrorStream(true).redirectOutput(log.toFile());
      Process process = pb.start();
      process.getOutputStream().close();
      ChildProcess started = new ChildProcess(name, process, log, httpsHealthPort, command);
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "stop-" + name));
      return started;
    } catch (IOException e) {
      throw new UncheckedIOException("starting " + name + ": " + command.get(0), e);
    }
  }

  private static final java.util.concurrent.atomic.AtomicLong STARTS =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * A log file under {@code dir} for the next start of {@code name}, numbered in the order of this
   * JVM's starts (a restarted program keeps its earlier logs).
   */
  public static Path logFile(Path dir, String name) {
    return dir.resolve(
        String.format(java.util.Locale.ROOT, "%03d-%s.log", STARTS.incrementAndGet(), name));
  }

  /** A port the kernel reports free on loopback now, for a program to listen on. */
  public static int freePort() {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public Path log() {
    return log;
  }

  public List<String> command() {
    return command;
  }

  /** The log's last {@code lines} lines, for failure messages. */
  public String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /**
   * Whether the process is alive and, with a health port, answers its readiness check there (TLS
   * with the program's own CA, not checked here: only that it serves).
   */
  public boolean ready() {
    if (!process.isAlive()) {
      return false;
    }
    if (webhookPort == 0) {
      return true;
    }
    try {
      SSLContext trustAll = SSLContext.getInstance("TLS");
      trustAll.init(null, new TrustManager[] {new TrustAll()}, new SecureRandom());
      HttpClient http =
          HttpClient.newBuilder()
              .sslContext(trustAll)
              .connectTimeout(Duration.ofSeconds(2))
              .build();
      HttpResponse<Void> r =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("https://127.0.0.1:" + webhookPort + "/health/readiness"))
                  .timeout(Duration.ofSeconds(3))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** CPU seconds (user and system) the process has used so far. */
  public double cpuSeconds() {
    return ProcStat.cpuSeconds(process.pid());
  }

  /** The process's peak resident set size so far, in bytes (VmHWM). */
  public long peakRssBytes() {
    return ProcStat.peakRssBytes(process.pid());
  }

  /** Stops the process (SIGTERM, its graceful shutdown; SIGKILL after 30 s) and waits for it. */
  public void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  @Override
  public void close() {
    stop();
  }

  private static final class TrustAll implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }

  /** Readings of /proc/&lt;pid&gt;: CPU time and peak RSS. */
  public static final class ProcStat {
    private ProcStat() {}

    /** utime + stime of the process, in seconds (clock ticks of 100 Hz, as Linux reports them). */
    public static double cpuSeconds(long pid) {
      try {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        // fields after the command name, which is in parentheses and may hold spaces
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
        return ticks / 100.0;
      } catch (IOException e) {
        throw new UncheckedIOException("reading /proc/" + pid + "/stat", e);
      }
    }

    /** VmHWM of the process, in bytes. */
    public static long peakRssBytes(long pid) {
      try {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
          if (line.startsWith("VmHWM:")) {
            return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
          }
        }
        throw new IllegalStateException("no VmHWM in /proc/" + pid + "/status");
      } catch (IOException e) {
        throw new UncheckedIOException("reading /proc/" + pid + "/status", e);
      }
    }
  }
}
