package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.ApiInterruptedException;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Which failures {@link ApiCalls} retries, with failures shaped as fabric8 8 throws them, and how
 * {@link ApiCalls#each} runs tasks side by side.
 */
class ApiCallsTest {
  private final RecordingSleeper sleeper = new RecordingSleeper();
  private final ApiCalls calls =
      new ApiCalls(
          ApiBudget.of(1000, 1000),
          new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(40), Duration.ZERO),
          new Random(1),
          sleeper,
          TallyMetrics.NONE);

  @Test
  void aRefusedConnectionIsRetried() {
    // fabric8 wraps an I/O error with code -1: no HTTP response at all
    var refused =
        new KubernetesClientException(
            "An error has occurred.", new ConnectException("Connection refused"));
    assertThat(refused.getCode()).isEqualTo(-1);
    AtomicInteger attempts = new AtomicInteger();

    String result =
        calls.call(
            "get something",
            () -> {
              if (attempts.incrementAndGet() < 3) {
                throw refused;
              }
              return "ok";
            });

    assertThat(result).isEqualTo("ok");
    assertThat(attempts).hasValue(3);
    assertThat(sleeper.sleeps).hasSize(2);
  }

  @Test
  void aForbiddenRequestIsNotRetried() {
    var forbidden =
        new KubernetesClientException(
            "forbidden", 403, new StatusBuilder().withCode(403).withReason("Forbidden").build());
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(
            () ->
                calls.call(
                    "get something",
                    () -> {
                      attempts.incrementAndGet();
                      throw forbidden;
                    }))
        .isSameAs(forbidden);
    assertThat(attempts).hasValue(1);
    assertThat(sleeper.sleeps).isEmpty();
  }

  private static ApiCalls lanes(int concurrency) {
    return new ApiCalls(
        ApiBudget.of(1000, 1000),
        new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(40), Duration.ZERO),
        new Random(1),
        new RecordingSleeper(),
        TallyMetrics.NONE,
        concurrency);
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(30, TimeUnit.SECONDS)).as("waited for the other tasks").isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Test
  void eachRunsAsManyTasksAtOnceAsItsConcurrencyAndNoMore() {
    ApiCalls calls = lanes(3);
    // the first three can only end once all three run at once: with fewer lanes this never ends
    CountDownLatch firstThree = new CountDownLatch(3);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    Set<Integer> ran = ConcurrentHashMap.newKeySet();
    Set<String> threads = ConcurrentHashMap.newKeySet();

    int started =
        calls.each(
            9,
            () -> true,
            i -> {
              most.accumulateAndGet(running.incrementAndGet(), Math::max);
              threads.add(Thread.currentThread().getName());
              if (i < 3) {
                firstThree.countDown();
                await(firstThree);
              }
              calls.call("request " + i, () -> i);
              ran.add(i);
              running.decrementAndGet();
            });

    assertThat(started).isEqualTo(9);
    assertThat(ran).hasSize(9);
    assertThat(most).hasValue(3);
    assertThat(threads).allMatch(t -> t.startsWith("tally-requests-")).hasSizeLessThanOrEqualTo(3);
  }

  @Test
  void eachWithAConcurrencyOfOneRunsInOrderOnTheCallingThread() {
    List<String> seen = new ArrayList<>();
    int started =
        lanes(1).each(3, () -> true, i -> seen.add(i + " " + Thread.currentThread().getName()));

    String me = Thread.currentThread().getName();
    assertThat(started).isEqualTo(3);
    assertThat(seen).containsExactly("0 " + me, "1 " + me, "2 " + me);
    assertThat(calls.concurrency()).isEqualTo(1);
  }

  @Test
  void eachStartsNoMoreOnceItMayNot() {
    for (int concurrency : new int[] {1, 4}) {
      AtomicInteger asked = new AtomicInteger();
      Set<Integer> ran = ConcurrentHashMap.newKeySet();

      int started = lanes(concurrency).each(10, () -> asked.incrementAndGet() <= 4, ran::add);

      assertThat(started).as("concurrency %d", concurrency).isEqualTo(4);
      assertThat(ran).as("concurrency %d", concurrency).containsExactlyInAnyOrder(0, 1, 2, 3);
      assertThat(asked).as("asked once more, then never again").hasValue(5);
    }
  }

  @Test
  void aTaskThatThrowsEndsTheBatchOnceTheOthersRunningEnded() {
    ApiCalls calls = lanes(2);
    IllegalStateException boom = new IllegalStateException("boom");
    CountDownLatch bothRun = new CountDownLatch(2);
    // the calling thread runs the hook when it takes a task that ended: task 1 ends only after
    // the batch has seen task 0's failure
    CountDownLatch failureSeen = new CountDownLatch(1);
    calls.onProgress(failureSeen::countDown);
    Set<Integer> ended = ConcurrentHashMap.newKeySet();

    assertThatThrownBy(
            () ->
                calls.each(
                    10,
                    () -> true,
                    i -> {
                      if (i < 2) {
                        bothRun.countDown();
                        await(bothRun);
                      }
                      if (i == 0) {
                        throw boom;
                      }
                      await(failureSeen);
                      ended.add(i);
                    }))
        .isSameAs(boom);
    // task 1 ran beside task 0 and ended after its failure: it was waited for; none more started
    assertThat(ended).containsExactly(1);
  }

  @Test
  void aTasksAttemptsAreTheCallingThreadsProgress() {
    ApiCalls calls = lanes(2);
    // no task ends before the hook has run: only a task's attempts, forwarded, can run it
    CountDownLatch hookRan = new CountDownLatch(1);
    List<String> progressOn = Collections.synchronizedList(new ArrayList<>());
    calls.onProgress(
        () -> {
          progressOn.add(Thread.currentThread().getName());
          hookRan.countDown();
        });
    String me = Thread.currentThread().getName();

    calls.each(
        2,
        () -> true,
        i -> {
          calls.call("request " + i, () -> i);
          await(hookRan);
        });

    assertThat(progressOn).isNotEmpty().allMatch(me::equals);
  }

  @Test
  void noRetryGoesOutOnceTheBatchMayNotGoOn() {
    var unavailable =
        new KubernetesClientException(
            "unavailable",
            503,
            new StatusBuilder().withCode(503).withReason("Unavailable").build());
    for (int concurrency : new int[] {1, 2}) {
      ApiCalls calls = lanes(concurrency);
      var may = new java.util.concurrent.atomic.AtomicBoolean(true);
      AtomicInteger attempts = new AtomicInteger();
      Set<Object> thrown = ConcurrentHashMap.newKeySet();

      calls.each(
          2,
          may::get,
          i -> {
            try {
              calls.call(
                  "request " + i,
                  () -> {
                    attempts.incrementAndGet();
                    may.set(false); // the lease is lost while the first attempts are answered
                    throw unavailable;
                  });
            } catch (KubernetesClientException e) {
              thrown.add(e);
            }
          });

      assertThat(thrown).as("concurrency %d", concurrency).containsExactly(unavailable);
      assertThat(attempts.get())
          .as("concurrency %d: one attempt per task started, no retry", concurrency)
          .isBetween(1, 2);
    }
  }

  @Test
  void anErrorInATaskIsThrownAtOnceAndTheOthersAreInterrupted() {
    ApiCalls calls = lanes(2);
    CountDownLatch otherRuns = new CountDownLatch(1);
    CountDownLatch otherInterrupted = new CountDownLatch(1);
    OutOfMemoryError error = new OutOfMemoryError("test");

    assertThatThrownBy(
            () ->
                calls.each(
                    2,
                    () -> true,
                    i -> {
                      if (i == 0) {
                        await(otherRuns);
                        throw error;
                      }
                      otherRuns.countDown();
                      try {
                        new CountDownLatch(1).await(30, TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        otherInterrupted.countDown();
                      }
                    }))
        .isSameAs(error);
    await(otherInterrupted);
  }

  @Test
  void anInterruptOfTheCallingThreadInterruptsTheTasksWhichSendNothingMore() throws Exception {
    ApiCalls calls = lanes(2);
    CountDownLatch taskWaits = new CountDownLatch(2);
    CountDownLatch taskInterrupted = new CountDownLatch(2);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicInteger requestsAfter = new AtomicInteger();
    Thread caller =
        new Thread(
            () -> {
              try {
                calls.each(
                    5,
                    () -> true,
                    i -> {
                      taskWaits.countDown();
                      try {
                        new CountDownLatch(1).await(30, TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        try {
                          calls.call("after the cancel", () -> requestsAfter.incrementAndGet());
                        } catch (ApiInterruptedException refused) {
                          taskInterrupted.countDown();
                        }
                      }
                    });
              } catch (RuntimeException e) {
                thrown.set(e);
              }
            });
    caller.start();
    await(taskWaits);
    caller.interrupt();
    caller.join(TimeUnit.SECONDS.toMillis(30));

    assertThat(caller.isAlive()).isFalse();
    assertThat(thrown.get()).isInstanceOf(ApiInterruptedException.class);
    await(taskInterrupted);
    assertThat(requestsAfter).as("no request sent by a cancelled task").hasValue(0);
  }

  @Test
  void aConcurrencyOutOfRangeIsRefusedNamingIt() {
    assertThatThrownBy(() -> lanes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("concurrency must be between 1 and 64, was 0");
    assertThatThrownBy(() -> lanes(65)).hasMessageContaining("was 65");
  }
}
