package dev.tally.kyverno.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CPU profiles of a Go program with Go's pprof HTTP handler (Kyverno's {@code --profile}):
 * 30-second profiles taken one after the other on a thread of their own from {@link #start} until
 * {@link #stop}, each saved as a file, then read with {@code go tool pprof -traces}: how much of
 * the CPU time sampled went to stacks through a package.
 */
final class CpuProfile {
  private static final int SECONDS = 30;

  /** A trace's first line: its value (e.g. {@code 10ms}, {@code 1.20s}) then its leaf frame. */
  private static final Pattern VALUE = Pattern.compile("^\\s*([0-9.]+)([a-zµ]*)\\s{3}(.*)$");

  private static final String SEPARATOR = "-----------+";

  private final String base;
  private final Path dir;
  private final String prefix;
  private final List<Path> files = new ArrayList<>();
  private final Thread thread;
  private volatile boolean stopped;

  private CpuProfile(int port, Path dir, String prefix) {
    this.base = "http://127.0.0.1:" + port + "/debug/pprof/profile?seconds=" + SECONDS;
    this.dir = dir;
    this.prefix = prefix;
    this.thread = new Thread(this::loop, "cpu-profile-" + prefix);
    this.thread.setDaemon(true);
  }

  /** Starts taking profiles from {@code 127.0.0.1:port}, saved as {@code dir/prefix-NN.pb.gz}. */
  static CpuProfile start(int port, Path dir, String prefix) {
    CpuProfile p = new CpuProfile(port, dir, prefix);
    p.thread.start();
    return p;
  }

  private void loop() {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    int n = 0;
    int failedInARow = 0;
    while (!stopped) {
      Path file = dir.resolve(String.format(Locale.ROOT, "%s-%02d.pb.gz", prefix, ++n));
      try {
        HttpResponse<Path> r =
            http.send(
                HttpRequest.newBuilder(URI.create(base))
                    .timeout(Duration.ofSeconds(SECONDS + 30))
                    .build(),
                HttpResponse.BodyHandlers.ofFile(file));
        failedInARow = 0;
        if (r.statusCode() == 200) {
          synchronized (files) {
            files.add(file);
          }
        } else {
          Files.deleteIfExists(file);
          SideBySide.log("profile " + file.getFileName() + ": HTTP " + r.statusCode());
          TimeUnit.SECONDS.sleep(1);
        }
      } catch (IOException e) {
        SideBySide.log("profile " + file.getFileName() + " not taken: " + e);
        if (++failedInARow >= 5) {
          // the program is gone (its run ended early): nothing more to profile
          SideBySide.log("profiles of " + prefix + " given up after 5 failures in a row");
          return;
        }
        try {
          TimeUnit.SECONDS.sleep(1);
        } catch (InterruptedException ie) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Stops after the profile under way (at most 30 s more); the profiles taken. */
  List<Path> stop() {
    stopped = true;
    try {
      thread.join(TimeUnit.SECONDS.toMillis(SECONDS + 40));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (files) {
      return List.copyOf(files);
    }
  }

  /**
   * CPU seconds sampled: in all, and in stacks with a frame whose name holds each of {@code in}.
   */
  record Samples(double total, double[] in) {}

  /** The sums of {@code go tool pprof -traces} over {@code files}. */
  static Samples read(List<Path> files, String... in) {
    double total = 0;
    double[] sums = new double[in.length];
    for (Path file : files) {
      Samples s = parseTraces(traces(file), in);
      total += s.total();
      for (int i = 0; i < in.length; i++) {
        sums[i] += s.in()[i];
      }
    }
    return new Samples(total, sums);
  }

  /** The output of {@code go tool pprof -traces file} (saved beside it as {@code .traces.txt}). */
  static String traces(Path file) {
    try {
      ProcessBuilder pb =
          new ProcessBuilder("go", "tool", "pprof", "-traces", file.toAbsolutePath().toString())
              .directory(file.toAbsolutePath().getParent().toFile())
              .redirectErrorStream(false);
      // the toolchain on this machine, whatever a go.mod nearby asks for
      pb.environment().put("GOTOOLCHAIN", "local");
      Path out = file.resolveSibling(file.getFileName() + ".traces.txt");
      Path err = file.resolveSibling(file.getFileName() + ".traces.err");
      pb.redirectOutput(out.toFile()).redirectError(err.toFile());
      Process p = pb.start();
      p.getOutputStream().close();
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException("go tool pprof -traces " + file + " took over 5 min");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            "go tool pprof -traces "
                + file
                + " failed: "
                + Files.readString(err, StandardCharsets.UTF_8));
      }
      Files.deleteIfExists(err);
      return Files.readString(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("go tool pprof -traces " + file, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Sums the traces of {@code go tool pprof -traces}: blocks between separator lines, each some
   * label lines ({@code key: value}), then the stack, leaf first, its first line led by the
   * sample's value.
   */
  static Samples parseTraces(String text, String... in) {
    double total = 0;
    double[] sums = new double[in.length];
    double value = -1;
    boolean[] hit = new boolean[in.length];
    for (String line : (text + "\n" + SEPARATOR).split("\n")) {
      if (line.startsWith(SEPARATOR)) {
        if (value >= 0) {
          total += value;
          for (int i = 0; i < in.length; i++) {
            sums[i] += hit[i] ? value : 0;
          }
        }
        value = -1;
        hit = new boolean[in.length];
        continue;
      }
      String frame;
      if (value < 0) {
        Matcher m = VALUE.matcher(line);
        if (!m.matches()) {
          continue; // the header before the first trace, or a sample's label
        }
        value = Double.parseDouble(m.group(1)) * seconds(m.group(2));
        frame = m.group(3);
      } else {
        frame = line.trim();
      }
      for (int i = 0; i < in.length; i++) {
        hit[i] |= frame.contains(in[i]);
      }
    }
    return new Samples(total, sums);
  }

  private static double seconds(String unit) {
    return switch (unit) {
      case "ns" -> 1e-9;
      case "us", "µs" -> 1e-6;
      case "ms" -> 1e-3;
      case "s", "" -> 1;
      case "mins" -> 60;
      case "hrs" -> 3600;
      default -> throw new IllegalArgumentException("unknown unit of a pprof value: " + unit);
    };
  }
}
