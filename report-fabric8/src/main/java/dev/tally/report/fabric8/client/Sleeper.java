package dev.tally.report.fabric8.client;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Waits for a while. Injected wherever Tally waits (the API budget, retry backoff) so that tests
 * can run without really waiting.
 */
@FunctionalInterface
public interface Sleeper {
  /** Really sleeps. */
  Sleeper SYSTEM = d -> TimeUnit.NANOSECONDS.sleep(d.toNanos());

  void sleep(Duration duration) throws InterruptedException;
}
