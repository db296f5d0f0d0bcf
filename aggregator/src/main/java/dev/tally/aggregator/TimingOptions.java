package dev.tally.aggregator;

import java.time.Duration;
import java.util.List;

/**
 * The flags of the controller's timing: how long changes are gathered before a write, how often and
 * how soon again everything is re-listed, how far ahead an evaluation may be, and how long the last
 * flush may take.
 *
 * <p>One of the groups of flags that {@link Options} assembles into the command line: it declares
 * its flags and parses them from {@link FlagValues}.
 *
 * @param resyncPeriod zero for never
 */
record TimingOptions(
    Duration flushWindow,
    Duration resyncPeriod,
    Duration maxClockSkew,
    Duration shutdownTimeout,
    Duration minResyncInterval) {
  /** The timings of writing and re-listing, which the usage text lists together. */
  static final List<Flag> WRITE_FLAGS =
      List.of(
          Flag.of(
              "--flush-window",
              "DURATION",
              "how long changes are gathered before they are written; default 500ms"),
          Flag.of(
              "--resync-period",
              "DURATION",
              "how often everything is re-listed as a safety net; default 10m, 0 for never"),
          Flag.of(
              "--max-clock-skew",
              "DURATION",
              "how far ahead of this clock an evaluation may be; later ones are refused; default"
                  + " 5m"));

  static final Flag SHUTDOWN_TIMEOUT =
      Flag.of(
          "--shutdown-timeout",
          "DURATION",
          "on SIGTERM, how long the last flush may take before it is abandoned; default 10s");

  static final Flag MIN_RESYNC_INTERVAL =
      Flag.of(
          "--min-resync-interval",
          "DURATION",
          "least time between two full resyncs that trouble asks for; default 30s");

  static TimingOptions parse(FlagValues v) {
    return new TimingOptions(
        v.duration("--flush-window", Duration.ofMillis(500), true),
        v.duration("--resync-period", Duration.ofMinutes(10), true),
        v.duration("--max-clock-skew", Duration.ofMinutes(5), true),
        v.duration("--shutdown-timeout", Duration.ofSeconds(10), true),
        v.duration("--min-resync-interval", Duration.ofSeconds(30), true));
  }
}
