package dev.tally.report.fabric8;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informers of the controller's {@link dev.tally.report.fabric8.input.ReportInput} (say
 * PartialReport and ClusterPartialReport) in every namespace. It hands each object to a {@link
 * Listener} as it appears, changes or disappears, and decides nothing about it. The informers
 * re-list on their own after a dropped watch; a deletion they missed while disconnected is
 * delivered after the re-list.
 */
final class InputInformers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(InputInformers.class);

  /** Receives input objects; called from informer threads. */
  interface Listener {
    void upsert(HasMetadata resource);

    /** {@code resource} is gone; it is the object's last state the informer knew. */
    void removed(HasMetadata resource);
  }

  private final List<SharedIndexInformer<? extends HasMetadata>> informers;

  InputInformers(List<SharedIndexInformer<? extends HasMetadata>> informers, Listener listener) {
    this.informers = List.copyOf(informers);
    for (var informer : this.informers) {
      register(informer, listener);
    }
  }

  private static <T extends HasMetadata> void register(
      SharedIndexInformer<T> informer, Listener listener) {
    informer.addEventHandler(
        new ResourceEventHandler<T>() {
          @Override
          public void onAdd(T obj) {
            listener.upsert(obj);
          }

          @Override
          public void onUpdate(T oldObj, T newObj) {
            listener.upsert(newObj);
          }

          @Override
          public void onDelete(T obj, boolean deletedFinalStateUnknown) {
            listener.removed(obj);
          }
        });
  }

  /** Starts the informers and waits until their caches hold a full list. */
  void start(Duration timeout) throws InterruptedException, TimeoutException {
    for (var informer : informers) {
      try {
        informer.start().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw new IllegalStateException("informer failed to start", e.getCause());
      }
    }
    LOG.info("input informers synced");
  }

  /** Every object the informers hold now. */
  List<HasMetadata> snapshot() {
    List<HasMetadata> out = new ArrayList<>();
    for (var informer : informers) {
      out.addAll(informer.getStore().list());
    }
    return out;
  }

  @Override
  public void close() {
    for (var informer : informers) {
      informer.close();
    }
  }
}
