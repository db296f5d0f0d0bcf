package dev.tally.aggregator;

import java.time.Duration;
import java.util.List;

/**
 * The flags of health and metrics: the port of {@code /healthz}, {@code /readyz} and {@code
 * /metrics}, the bounds the probes judge by, and how long a client of them may take.
 *
 * <p>One of the groups of flags that {@link Options} assembles into the command line: it declares
 * its flags and parses them from {@link FlagValues}.
 *
 * @param httpPort 0 for no HTTP server
 * @param maxStaleness zero for no bound
 */
record HealthOptions(
    int httpPort, Duration stallBound, Duration maxStaleness, Duration httpRequestTimeout) {
  /** {@code --http-port}, which the usage text lists before the controller's timings. */
  static final Flag HTTP_PORT =
      Flag.of(
          "--http-port",
          "PORT",
          "port of /healthz, /readyz and /metrics; default 8080, 0 for none");

  /** The probes' bounds, which the usage text lists last. */
  static final List<Flag> PROBE_FLAGS =
      List.of(
          Flag.of(
              "--stall-bound",
              "DURATION",
              "/healthz fails once a task of the aggregator thread has made no progress (no API"
                  + " request or backoff began) for this long, or the periodic resync has not run"
                  + " for --resync-period plus this; default 3m"),
          Flag.of(
              "--max-staleness",
              "DURATION",
              "/readyz fails on the leader once an input has waited this long without being"
                  + " written, or no resync succeeded for --resync-period plus this; default 5m,"
                  + " 0 for no bound"),
          Flag.of(
              "--http-request-timeout",
              "DURATION",
              "how long a client of /healthz, /readyz and /metrics may take to send its request"
                  + " and read the answer before it is disconnected; default 5s"));

  static HealthOptions parse(FlagValues v) {
    return new HealthOptions(
        v.number("--http-port", 8080, Integer::parseInt, 0, 65535),
        v.duration("--stall-bound", Duration.ofMinutes(3), false),
        v.duration("--max-staleness", Duration.ofMinutes(5), true),
        v.duration("--http-request-timeout", Duration.ofSeconds(5), false));
  }
}
