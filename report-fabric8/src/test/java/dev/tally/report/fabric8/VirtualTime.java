package dev.tally.report.fabric8;

import dev.tally.report.fabric8.client.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A clock the test moves, and a sleeper that moves it instead of waiting: budget waits and backoffs
 * take virtual time, never real time. The one test clock of this module (public for the audit
 * tests).
 */
public final class VirtualTime extends Clock implements Sleeper {
  private final Instant start;
  private volatile Instant now;
  public final List<Duration> sleeps = new CopyOnWriteArrayList<>();

  public VirtualTime(Instant start) {
    this.start = start;
    this.now = start;
  }

  public synchronized void advance(Duration d) {
    now = now.plus(d);
  }

  @Override
  public void sleep(Duration duration) {
    sleeps.add(duration);
    advance(duration);
  }

  public Duration elapsed() {
    return Duration.between(start, now);
  }

  public long nanos() {
    Instant n = now;
    return n.getEpochSecond() * 1_000_000_000L + n.getNano();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
