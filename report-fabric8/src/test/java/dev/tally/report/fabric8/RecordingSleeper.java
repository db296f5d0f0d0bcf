package dev.tally.report.fabric8;

import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.Sleeper;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link Sleeper} that records what it was asked to wait and returns at once. */
public final class RecordingSleeper implements Sleeper {
  public final List<Duration> sleeps = new CopyOnWriteArrayList<>();

  /**
   * Virtual time: the nanoseconds slept so far, a ticker for an {@link ApiBudget} that waits
   * through this sleeper, so that what the budget holds back ends when it was slept.
   */
  public long nanos() {
    long total = 0;
    for (Duration d : sleeps) {
      total += d.toNanos();
    }
    return total;
  }

  @Override
  public void sleep(Duration duration) {
    sleeps.add(duration);
  }
}
