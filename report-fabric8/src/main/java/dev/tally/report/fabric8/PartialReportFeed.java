package dev.tally.report.fabric8;

import dev.tally.report.fabric8.internal.ApiCalls;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
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

  private @Nullable PartialReportSource source;

  PartialReportFeed(
      KubernetesClient client,
      ApiCalls calls,
      FeedInput input,
      AggregatorThread thread,
      PartialReportLedger ledger,
      Duration syncTimeout) {
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

  /** Starts the informers and waits until they synced; {@link #stop} stops them, synced or not. */
  void start() throws InterruptedException, TimeoutException {
    var src =
        new PartialReportSource(
            input.informers(client),
            new PartialReportSource.Listener() {
              @Override
              public void upsert(HasMetadata resource) {
                thread.submit(() -> ledger.upsert(resource));
              }

              @Override
              public void removed(HasMetadata resource) {
                thread.submit(() -> ledger.removed(resource));
              }
            });
    source = src;
    src.start(syncTimeout);
  }

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
