package dev.tally.report.audit;

import dev.tally.report.api.InvalidReportException;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names one audit run: the interval it belongs to and the digest of its plan. Members that see the
 * same plan in the same interval are in the same run; the name is a valid DNS label, so it can go
 * into object names and label values.
 *
 * @param epoch the index of the interval, {@code floor(now / interval)}
 * @param planDigest the {@link ShardPlan#digest()}, sixteen hex digits
 */
public record RunId(long epoch, String planDigest) implements Comparable<RunId> {
  private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{16}");
  private static final Pattern NAME = Pattern.compile("r([0-9]{1,19})-([0-9a-f]{16})");

  public RunId {
    if (epoch < 0) {
      throw new InvalidReportException("epoch", "must not be negative, was " + epoch);
    }
    if (!DIGEST.matcher(planDigest).matches()) {
      throw new InvalidReportException(
          "planDigest", "must be sixteen lower-case hex digits, was '" + planDigest + "'");
    }
  }

  /** The interval {@code now} falls in. The instant is an argument: this class reads no clock. */
  public static long epochOf(Instant now, Duration interval) {
    if (interval.isZero() || interval.isNegative()) {
      throw new IllegalArgumentException("interval must be positive, was " + interval);
    }
    return Math.floorDiv(now.toEpochMilli(), interval.toMillis());
  }

  public static RunId of(long epoch, ShardPlan plan) {
    return new RunId(epoch, plan.digest());
  }

  /** Parses {@link #name()}. */
  public static RunId parse(String name) {
    Matcher m = NAME.matcher(name);
    if (!m.matches()) {
      throw new InvalidReportException("runId", "'" + name + "' is not r<epoch>-<16 hex digits>");
    }
    try {
      return new RunId(Long.parseLong(m.group(1)), m.group(2));
    } catch (NumberFormatException e) {
      throw new InvalidReportException("runId", "epoch of '" + name + "' is out of range");
    }
  }

  /** {@code r<epoch>-<digest>}: a DNS label. */
  public String name() {
    return "r" + epoch + "-" + planDigest;
  }

  @Override
  public int compareTo(RunId o) {
    int c = Long.compare(epoch, o.epoch);
    return c != 0 ? c : planDigest.compareTo(o.planDigest);
  }

  @Override
  public String toString() {
    return name();
  }
}
