package dev.tally.report.fabric8.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * WARN lines that a flood cannot multiply: at most one per key and {@code interval}; the next one
 * says how many were held back meanwhile. Keys are few (a kind and a purpose); past {@code
 * MAX_KEYS} the oldest counts are dropped, never a line's first occurrence. Not thread-safe.
 */
public final class RateLimitedLog {
  private static final int MAX_KEYS = 1000;

  private record Seen(Instant last, int heldBack) {}

  private final Logger log;
  private final Clock clock;
  private final Duration interval;
  private final Map<String, Seen> seen = new HashMap<>();

  public RateLimitedLog(Logger log, Clock clock, Duration interval) {
    this.log = log;
    this.clock = clock;
    this.interval = interval;
  }

  /** Logs {@code format} at WARN unless a line of {@code key} was logged within the interval. */
  public void warn(String key, String format, Object... args) {
    Instant now = clock.instant();
    Seen s = seen.get(key);
    if (s != null && Duration.between(s.last(), now).compareTo(interval) < 0) {
      seen.put(key, new Seen(s.last(), s.heldBack() + 1));
      return;
    }
    if (seen.size() >= MAX_KEYS && s == null) {
      seen.clear();
    }
    seen.put(key, new Seen(now, 0));
    if (s != null && s.heldBack() > 0) {
      log.warn(
          format + " (and {} more like it in the last {})", append(args, s.heldBack(), interval));
    } else {
      log.warn(format, args);
    }
  }

  private static Object[] append(Object[] args, Object... more) {
    Object[] out = new Object[args.length + more.length];
    System.arraycopy(args, 0, out, 0, args.length);
    System.arraycopy(more, 0, out, args.length, more.length);
    return out;
  }
}
