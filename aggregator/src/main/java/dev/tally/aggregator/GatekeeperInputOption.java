package dev.tally.aggregator;

import dev.tally.aggregator.Options.UsageException;
import dev.tally.report.gatekeeper.GatekeeperInput;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * {@code --input gatekeeper}: the runs Gatekeeper's audit exports with its {@code disk} driver, as
 * the audit's sidecar reads them, and the flags that apply only with it, read into a {@link
 * GatekeeperInput}. One of {@link Options#INPUTS}.
 */
final class GatekeeperInputOption extends InputOption<GatekeeperInput> {
  static final GatekeeperInputOption INPUT = new GatekeeperInputOption();

  /**
   * Where Gatekeeper's chart (v3.23.1, {@code exportBackend: disk}) has the audit write: the shared
   * volume at {@code /tmp/violations}, the Connection's path {@code /tmp/violations/topics}, the
   * channel {@code audit-channel}.
   */
  static final String DEFAULT_EXPORT_DIR = "/tmp/violations/topics/audit-channel";

  private static final List<Flag> FLAGS =
      List.of(
          Flag.of(
              "--gatekeeper-export-dir",
              "DIR",
              "with --input gatekeeper, the channel's directory the audit's disk export writes"
                  + " its runs to; default "
                  + DEFAULT_EXPORT_DIR
                  + " (Gatekeeper's chart's)"),
          Flag.of(
              "--gatekeeper-poll-period",
              "DURATION",
              "with --input gatekeeper, how often the directory is read for a finished run;"
                  + " default 10s"),
          Flag.of(
              "--gatekeeper-lookup-kinds",
              "LIST",
              "with --input gatekeeper, the resources whose uids the aggregator may read (by"
                  + " name, metadata only; exports carry none), comma-separated, as <plural> or"
                  + " <plural>.<group>; a violation of another kind is not reported; default: "
                  + String.join(
                      ",", GatekeeperInput.DEFAULT_LOOKUP_KINDS.stream().sorted().toList())
                  + ". Its role must grant get and list on each"));

  private GatekeeperInputOption() {
    super("gatekeeper", "the violations Gatekeeper's audit exports to disk, as its sidecar");
  }

  @Override
  List<Flag> flags() {
    return FLAGS;
  }

  @Override
  GatekeeperInput read(FlagValues v) {
    String dir = v.getOrDefault("--gatekeeper-export-dir", DEFAULT_EXPORT_DIR);
    GatekeeperInput g;
    try {
      g = GatekeeperInput.reading(Path.of(dir));
    } catch (InvalidPathException e) {
      throw new UsageException("--gatekeeper-export-dir", "'" + dir + "' is not a path");
    }
    if (v.has("--gatekeeper-poll-period")) {
      g =
          g.withPollPeriod(
              v.duration("--gatekeeper-poll-period", GatekeeperInput.DEFAULT_POLL_PERIOD, false));
    }
    if (v.has("--gatekeeper-lookup-kinds")) {
      Set<String> kinds =
          resources("--gatekeeper-lookup-kinds", v.getOrDefault("--gatekeeper-lookup-kinds", ""));
      try {
        g = g.withLookupKinds(kinds);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--gatekeeper-lookup-kinds", e.getMessage());
      }
    }
    return g;
  }
}
