package dev.tally.aggregator.log;

import java.io.PrintStream;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.event.Level;

/**
 * The aggregator's logging: where its records go, in which {@link LogFormat}, from which level.
 * Tally's own loggers ({@code dev.tally.*}) log from the level asked ({@code --log-level}, INFO by
 * default); every library (fabric8, Vert.x, netty) from WARN, or from the level asked when that is
 * ERROR, so that its warnings and errors are seen and its chatter is not. Set once the flags are
 * read ({@link #configure}); until then, text at INFO to standard error.
 */
public final class Logging {
  /** Loggers that say nothing worth a line below ERROR, with why. */
  private static final Map<String, String> QUIET =
      Map.of(
          // fabric8 warns that a client of another Kubernetes minor is in use: noise against any
          // server
          "io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils", "version skew");

  private static volatile LogFormat format = LogFormat.TEXT;
  private static volatile Level tally = Level.INFO;
  private static volatile PrintStream out = System.err;
  private static volatile Clock clock = Clock.systemUTC();

  private Logging() {}

  /** From now on, records in {@code format}, Tally's from {@code level} on. */
  public static void configure(LogFormat format, Level level) {
    Logging.format = format;
    Logging.tally = level;
  }

  /**
   * Where records go (standard error unless a test says otherwise), and the clock of their time.
   */
  static void sink(PrintStream out, Clock clock) {
    Logging.out = out;
    Logging.clock = clock;
  }

  /** A level's name as {@code --log-level} takes it: {@code error}, {@code warn}, ... */
  public static Level level(String name) {
    try {
      return Level.valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "expected one of error, warn, info, debug, trace, got " + name);
    }
  }

  /** Whether a record of {@code level} from {@code logger} is written. */
  static boolean enabled(String logger, Level level) {
    Level from;
    if (QUIET.containsKey(logger)) {
      from = Level.ERROR;
    } else if (logger.startsWith("dev.tally.")) {
      from = tally;
    } else {
      from = tally == Level.ERROR ? Level.ERROR : Level.WARN;
    }
    return level.toInt() >= from.toInt();
  }

  static void write(
      Level level,
      String logger,
      String message,
      List<Map.Entry<String, @Nullable Object>> fields,
      @Nullable Throwable error) {
    String line = LogLine.format(format, clock.instant(), level, logger, message, fields, error);
    PrintStream stream = out;
    // one print per record: records of concurrent threads never interleave within a line
    synchronized (stream) {
      stream.print(line);
      stream.flush();
    }
  }
}
