package dev.tally.report.fabric8;

import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
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
 * Informers on PartialReport and ClusterPartialReport in every namespace. It hands each object to a
 * {@link Listener} as it appears, changes or disappears, and decides nothing about it. The
 * informers re-list on their own after a dropped watch; a deletion they missed while disconnected
 * is delivered after the re-list.
 */
final class PartialReportSource implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PartialReportSource.class);

  /** Receives partial report objects; called from informer threads. */
  interface Listener {
    void upsert(CustomResource<PartialReportSpec, Void> resource);

    void removed(CustomResource<PartialReportSpec, Void> resource);
  }

  private final List<SharedIndexInformer<? extends CustomResource<PartialReportSpec, Void>>>
      informers = new ArrayList<>();

  PartialReportSource(KubernetesClient client, Listener listener) {
    informers.add(
        client.resources(PartialReportResource.class).inAnyNamespace().runnableInformer(0));
    informers.add(client.resources(ClusterPartialReportResource.class).runnableInformer(0));
    for (var informer : informers) {
      informer.addEventHandler(handler(listener));
    }
  }

  private static <T extends CustomResource<PartialReportSpec, Void>>
      ResourceEventHandler<T> handler(Listener listener) {
    return new ResourceEventHandler<>() {
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
    };
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
    LOG.info("partial report informers synced");
  }

  /** Every partial report object the informers hold now. */
  List<CustomResource<PartialReportSpec, Void>> snapshot() {
    List<CustomResource<PartialReportSpec, Void>> out = new ArrayList<>();
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
