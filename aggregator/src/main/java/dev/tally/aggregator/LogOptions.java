package dev.tally.aggregator;

import dev.tally.aggregator.Options.UsageException;
import dev.tally.aggregator.log.LogFormat;
import dev.tally.aggregator.log.Logging;
import java.util.List;
import java.util.Locale;
import org.slf4j.event.Level;

/**
 * The flags of the process's log: its format and from which level Tally's records are written.
 *
 * @param format text or JSON lines
 * @param level the least severe level of Tally's own records written
 */
record LogOptions(LogFormat format, Level level) {
  static final List<Flag> FLAGS =
      List.of(
          Flag.of(
              "--log-format",
              "text|json",
              "how each record is written to standard error, one line each: text, or json (an"
                  + " object of time, level, logger, message and the record's fields such as"
                  + " namespace and name); tenants' strings are escaped and bounded in both;"
                  + " default: text"),
          Flag.of(
              "--log-level",
              "LEVEL",
              "the least severe of Tally's records written: error, warn, info, debug or trace;"
                  + " libraries log from warn (from error with error); default: info"));

  static LogOptions parse(FlagValues v) {
    String format = v.get("--log-format");
    LogFormat logFormat = LogFormat.TEXT;
    if (format != null) {
      try {
        logFormat = LogFormat.valueOf(format.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new UsageException("--log-format", "expected text or json, got " + format);
      }
    }
    String level = v.get("--log-level");
    Level logLevel = Level.INFO;
    if (level != null) {
      try {
        logLevel = Logging.level(level);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--log-level", e.getMessage());
      }
    }
    return new LogOptions(logFormat, logLevel);
  }
}
