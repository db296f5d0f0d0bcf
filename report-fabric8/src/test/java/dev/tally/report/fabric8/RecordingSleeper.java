package dev.tally.report.fabric8;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link Sleeper} that records what it was asked to wait and returns at once. */
final class RecordingSleeper implements Sleeper {
  final List<Duration> sleeps = new CopyOnWriteArrayList<>();

  @Override
  public void sleep(Duration duration) {
    sleeps.add(duration);
  }
}
