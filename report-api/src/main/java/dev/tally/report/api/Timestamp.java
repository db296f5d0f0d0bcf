package dev.tally.report.api;

/**
 * A point in time as both formats write it: seconds since the epoch and nanoseconds. Ordered by
 * (seconds, nanos), so two results observed within the same second still have an order.
 *
 * @param seconds seconds since 1970-01-01T00:00:00Z, in [0, 253402300799] (up to year 9999)
 * @param nanos fraction of the second, in [0, 999999999]
 */
public record Timestamp(long seconds, int nanos) implements Comparable<Timestamp> {
  /** 9999-12-31T23:59:59Z, the largest instant the CRDs accept. */
  public static final long MAX_SECONDS = 253_402_300_799L;

  public static final Timestamp EPOCH = new Timestamp(0, 0);

  public Timestamp {
    if (seconds < 0 || seconds > MAX_SECONDS) {
      throw new InvalidReportException(
          "seconds", "must be in [0, " + MAX_SECONDS + "], was " + seconds);
    }
    if (nanos < 0 || nanos > 999_999_999) {
      throw new InvalidReportException("nanos", "must be in [0, 999999999], was " + nanos);
    }
  }

  public static Timestamp ofSeconds(long seconds) {
    return new Timestamp(seconds, 0);
  }

  /** Validates with the given field path in errors, such as {@code results[2].timestamp}. */
  public static Timestamp of(String field, long seconds, int nanos) {
    Checks.nonNull("field", field);
    try {
      return new Timestamp(seconds, nanos);
    } catch (InvalidReportException e) {
      throw e.under(field);
    }
  }

  /** This instant plus a non-negative number of seconds, saturating at {@link #MAX_SECONDS}. */
  public Timestamp plusSeconds(long delta) {
    long s = seconds + delta;
    return new Timestamp(Math.max(0, Math.min(MAX_SECONDS, s)), nanos);
  }

  @Override
  public int compareTo(Timestamp o) {
    int c = Long.compare(seconds, o.seconds);
    return c != 0 ? c : Integer.compare(nanos, o.nanos);
  }

  public boolean isAfter(Timestamp o) {
    Checks.nonNull("other", o);
    return compareTo(o) > 0;
  }

  @Override
  public String toString() {
    return seconds + "." + String.format("%09d", nanos) + "s";
  }
}
