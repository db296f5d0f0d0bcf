package dev.tally.report.fabric8;

import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.resource.InputResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
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
 * Feeds the {@link InputLedger} from the cluster while this replica leads: the informers of {@link
 * InputInformers}, whose events it hands to the aggregator thread, their caches once synced, and
 * the periodic re-list that repairs an informer which missed a deletion. Confined to the aggregator
 * thread, apart from the events it hands over.
 */
final class InputFeed {
  private static final Logger LOG = LoggerFactory.getLogger(InputFeed.class);

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final ReportInput input;
  private final AggregatorThread thread;
  private final InputLedger ledger;
  private final Duration syncTimeout;
  private final UnaryOperator<Runnable> arrival;
  private final InformerStores copies;

  private @Nullable InputInformers source;

  InputFeed(
      KubernetesClient client,
      ApiCalls calls,
      ReportInput input,
      AggregatorThread thread,
      InputLedger ledger,
      Duration syncTimeout,
      UnaryOperator<Runnable> arrival,
      InformerStores copies) {
    this.arrival = arrival;
    this.client = client;
    this.calls = calls;
    this.input = input;
    this.thread = thread;
    this.ledger = ledger;
    this.syncTimeout = syncTimeout;
    this.copies = copies;
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
   * hand-over task goes through {@code arrival}, which stamps when it was handed over. The
   * informers hold an object whose version the ledger handled as its identity alone, and a refused
   * one within caps ({@link InformerStores}).
   */
  void start() throws InterruptedException, TimeoutException {
    List<SharedIndexInformer<? extends HasMetadata>> informers = new ArrayList<>();
    for (var informer : input.informers(client)) {
      informers.add(copies.bound(informer));
    }
    var src =
        new InputInformers(
            informers,
            handing(
                task -> thread.submit(arrival.apply(task)),
                new InputInformers.Listener() {
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
   * One task waits at a time. Each object waits, in order of its first event since its last
   * hand-over, as at most one removal followed by one upsert: an upsert replaces the upsert before
   * it; a removal replaces what waited before it (an upsert, or a removal followed by an upsert of
   * the object created again under the same name), since it carries the object's last state, which
   * supersedes the earlier ones; an upsert after a removal (the object created again) is kept
   * behind it. A watch's deletion of an input object carries its identity alone ({@link
   * InputResource#isIdentityOnly}); the object's last state is then the upsert waiting before it,
   * which becomes the removal, or, when none waits, the one handed over already. So a namespace
   * that rewrites, or deletes and creates again, its objects as fast as it can makes the queue hold
   * at most two states per object, and the ledger receives what it would have received event by
   * event, minus states that a later one under the same name superseded.
   */
  static InputInformers.Listener handing(
      Consumer<Runnable> submit, InputInformers.Listener target) {
    return new InputInformers.Listener() {
      /** Each object's events not handed over yet, in order of each object's first event. */
      private final LinkedHashMap<String, Pending> pending = new LinkedHashMap<>();

      private boolean scheduled;

      @Override
      public void upsert(HasMetadata resource) {
        add(resource, false);
      }

      @Override
      public void removed(HasMetadata resource) {
        add(resource, true);
      }

      private void add(HasMetadata resource, boolean removed) {
        boolean schedule;
        synchronized (pending) {
          pending.merge(
              InputLedger.key(resource),
              removed ? new Pending(resource, null) : new Pending(null, resource),
              (had, now) -> {
                if (!removed) {
                  return new Pending(had.removal(), resource);
                }
                // a deletion read as the object's identity carries no state: the last state is
                // the upsert still waiting, which the removal hands over in its place
                return InputResource.isIdentityOnly(resource) && had.upsert() != null
                    ? new Pending(had.upsert(), null)
                    : now;
              });
          schedule = !scheduled;
          scheduled = true;
        }
        if (schedule) {
          submit.accept(this::handOver);
        }
      }

      /** On the aggregator thread: hands a batch of objects' events to the target. */
      private void handOver() {
        List<Pending> batch = new ArrayList<>();
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
        for (Pending events : batch) {
          try {
            if (events.removal() != null) {
              target.removed(events.removal());
            }
          } catch (RuntimeException ex) {
            failed = collect(failed, ex);
          }
          try {
            if (events.upsert() != null) {
              target.upsert(events.upsert());
            }
          } catch (RuntimeException ex) {
            failed = collect(failed, ex);
          }
        }
        if (failed != null) {
          throw failed; // the thread logs it and the controller resyncs
        }
      }

      private RuntimeException collect(@Nullable RuntimeException failed, RuntimeException ex) {
        if (failed == null) {
          return ex;
        }
        failed.addSuppressed(ex);
        return failed;
      }
    };
  }

  /**
   * One object's events waiting for the aggregator thread: its last removal, then its latest upsert
   * (the object created again); either may be absent, not both.
   */
  private record Pending(@Nullable HasMetadata removal, @Nullable HasMetadata upsert) {}

  /**
   * Applies the informers' caches. The ADD events queued behind this task re-apply the same
   * reports, which changes nothing.
   */
  void applyCaches() {
    InputInformers src = source;
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
      copies.clear();
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
      present.add(InputLedger.key(resource));
      ledger.upsert(resource);
    }
    int forgotten = ledger.forgetAllBut(present);
    if (forgotten > 0) {
      LOG.info("{} input objects were deleted without an event reaching us", forgotten);
    }
    return true;
  }
}
