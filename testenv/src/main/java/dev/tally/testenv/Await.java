package dev.tally.testenv;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition with a bounded poll; never sleeps a fixed time, never reads the clock.
 * Every module's tests wait with it.
 */
public final class Await {
  private static final long POLL_NANOS = Duration.ofMillis(10).toNanos();

  private Await() {}

  public static void until(String what, BooleanSupplier condition) {
    until(what, condition, Duration.ofSeconds(90));
  }

  public static void until(String what, BooleanSupplier condition, Duration timeout) {
    long polls = timeout.toNanos() / POLL_NANOS;
    for (long i = 0; i < polls; i++) {
      if (condition.getAsBoolean()) {
        return;
      }
      LockSupport.parkNanos(POLL_NANOS);
    }
    if (!condition.getAsBoolean()) {
      throw new AssertionError("timed out waiting until " + what);
    }
  }
}
