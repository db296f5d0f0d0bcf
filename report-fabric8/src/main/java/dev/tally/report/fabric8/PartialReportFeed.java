package dev.tally.report.fabric8;

import dev.tally.report.fabric8.internal.ApiCalls;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds the {@link PartialReportLedger} from the cluster while this replica leads: the informers of
 * {@link PartialReportSource}, whose events it hands to the aggregator thread, their caches once
 * synced, and the periodic re-list that repairs an informer which missed a deletion. Confined to
 * the aggregator thread, apart from the events it hands over.
 */
final class PartialReportFeed {
  private static final Logger LOG = LoggerFactory.getLogger(PartialReportFeed.class);

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final FeedInput input;
  private final AggregatorThread thread;
  private final PartialReportLedger ledger;
  private final Duration syncTimeout;
  private final UnaryOperator<Runnable> arrival;

  private @Nullable PartialReportSource source;

  PartialReportFeed(
      KubernetesClient client,
      ApiCalls calls,
      FeedInput input,
      AggregatorThread thread,
      PartialReportLedger ledger,
      Duration syncTimeout,
      UnaryOperator<Runnable> arrival) {
    this.arrival = arrival;
    this.client = client;
    this.calls = calls;
    this.input = input;
    this.thread = thread;
    this.ledger = ledger;
    this.syncTimeout = syncTimeout;
  }

  /**
   * LISTs one object of the input, with the usual budget and retries.
   *
   * @throws RequestFailedException if the request failed for good
   */
  void checkAccess() {
    input.checkAccess(client, calls);
  }

  /**
   * Starts the informers and waits until they synced; {@link #stop} stops them, synced or not. Each
   * hand-over task goes through {@code arrival}, which stamps when it was handed over.
   */
  void start() throws InterruptedException, TimeoutException {
    var src =
        new PartialReportSource(
            input.informers(client),
            handing(
                task -> thread.submit(arrival.apply(task)),
                new PartialReportSource.Listener() {
                  @Override
                  public void upsert(HasMetadata resource) {
                    ledger.upsert(resource);
                  }

                  @Override
                  public void removed(HasMetadata resource) {
                    ledger.removed(resource);
                  }
                }));
    source = src;
    src.start(syncTimeout);
  }

  /** Objects handed to the ledger per task, so that timers and flushes run between batches. */
  static final int BATCH = 1_000;

  /**
   * The listener the informers call (on their threads): it hands their events to {@code target} in
   * tasks given to {@code submit} (the aggregator thread), with the events of each object
   * coalesced, so that what waits for the thread is bounded by the objects and not by the events.
   * One task waits at a time. Per object, in order of the first event since its last hand-over: an
   * upsert replaces the upsert before it, a removal replaces the upsert before it (the removal
   * carries the object's last state), and an upsert after a removal (an object created again under
   * the same name) is kept behind it. So a namespace that rewrites its objects as fast as it can
   * makes the queue hold one state per object, and the ledger receives what it would have received
   * event by event, minus states that a later one of the same object superseded.
   */
  static PartialReportSource.Listener handing(
      Consumer<Runnable> submit, PartialReportSource.Listener target) {
    return new PartialReportSource.Listener() {
      /** Each object's events not handed over yet, in order of each object's first event. */
      private final LinkedHashMap<String, ArrayDeque<Pending>> pending = new LinkedHashMap<>();

      private boolean scheduled;

      @Override
      public void upsert(HasMetadata resource) {
        add(new Pending(resource, false));
      }

      @Override
      public void removed(HasMetadata resource) {
        add(new Pending(resource, true));
      }

      private void add(Pending event) {
        boolean schedule;
        synchronized (pending) {
          ArrayDeque<Pending> events =
              pending.computeIfAbsent(
                  PartialReportLedger.key(event.resource()), k -> new ArrayDeque<>(2));
          Pending last = events.peekLast();
          if (last != null && !last.removed()) {
            events.pollLast(); // superseded by this later state of the same object
          }
          events.addLast(event);
          schedule = !scheduled;
          scheduled = true;
        }
        if (schedule) {
          submit.accept(this::handOver);
        }
      }

      /** On the aggregator thread: hands a batch of objects' events to the target. */
      private void handOver() {
        List<ArrayDeque<Pending>> batch = new ArrayList<>();
        boolean more;
        synchronized (pending) {
          var it = pending.values().iterator();
          while (it.hasNext() && batch.size() < BATCH) {
            batch.add(it.next());
            it.remove();
          }
          more = !pending.isEmpty();
          scheduled = more;
        }
        if (more) {
          submit.accept(this::handOver);
        }
        // one object that fails does not keep the others of the batch from the ledger
        RuntimeException failed = null;
        for (ArrayDeque<Pending> events : batch) {
          for (Pending e : events) {
            try {
              if (e.removed()) {
                target.removed(e.resource());
              } else {
                target.upsert(e.resource());
              }
            } catch (RuntimeException ex) {
              if (failed == null) {
                failed = ex;
              } else {
                failed.addSuppressed(ex);
              }
            }
          }
        }
        if (failed != null) {
          throw failed; // the thread logs it and the controller resyncs
        }
      }
    };
  }

  /** An event of the informers waiting for the aggregator thread. */
  private record Pending(HasMetadata resource, boolean removed) {}

  /**
   * Applies the informers' caches. The ADD events queued behind this task re-apply the same
   * reports, which changes nothing.
   */
  void applyCaches() {
    PartialReportSource src = source;
    if (src == null) {
      return;
    }
    for (var resource : src.snapshot()) {
      ledger.upsert(resource);
    }
  }

  /** Whether the informers run. */
  boolean running() {
    return source != null;
  }

  /** Stops the informers. */
  void stop() {
    if (source != null) {
      source.close();
      source = null;
    }
  }

  /**
   * LISTs every input object afresh, applies what is newer and forgets what is gone: the net under
   * an informer that missed a deletion while its watch reconnected.
   *
   * <p>This runs on the aggregator thread, so every object the ledger tracks was handled before the
   * LIST began: one missing from the LIST was deleted. One created after the LIST is still queued
   * as an event and arrives next.
   *
   * @return false when the LIST failed (logged); nothing was applied or forgotten then
   */
  boolean relist() {
    List<HasMetadata> listed;
    try {
      listed = input.listAll(client, calls);
    } catch (KubernetesClientException e) {
      LOG.warn("periodic re-list failed: {}", RequestFailedException.rootCause(e));
      return false;
    }
    Set<String> present = new HashSet<>();
    ledger.retryRefused();
    for (var resource : listed) {
      present.add(PartialReportLedger.key(resource));
      ledger.upsert(resource);
    }
    int forgotten = ledger.forgetAllBut(present);
    if (forgotten > 0) {
      LOG.info("{} input objects were deleted without an event reaching us", forgotten);
    }
    return true;
  }
}
