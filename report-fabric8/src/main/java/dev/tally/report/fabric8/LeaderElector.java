package dev.tally.report.fabric8;

import dev.tally.report.fabric8.client.RequestFailedException;
import dev.tally.report.fabric8.internal.ApiCalls;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs for the Lease of {@link LeaderElectionSettings} with fabric8's elector, stands again after
 * losing it (or failing to win it), and on close releases it: clears its holder if it is still this
 * replica. Says when this replica starts and stops leading through two callbacks, called from
 * fabric8's threads; it does not know what leading means.
 *
 * <p>It also knows, on its own clock, whether the Lease is still surely held: fabric8 says a leader
 * stopped leading only once its renewal loop notices, which a process paused past the lease's
 * duration (a long GC, a frozen container, a suspended VM) does only after it resumed, and a write
 * could go out first. {@link #withinRenewDeadline()} is true only while less than the renew
 * deadline has passed since the last renewal of this replica's holding began (the moment before its
 * create or update of the Lease was sent, so never later than the server's view): the writer checks
 * it before each write.
 */
final class LeaderElector {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElector.class);

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final LeaderElectionSettings settings;
  private final BooleanSupplier closed;
  private final Runnable startedLeading;
  private final Runnable stoppedLeading;
  private final LongSupplier nanoTicker;

  private @Nullable Future<?> running;

  /** When the last successful acquisition or renewal of this replica began; see renewed. */
  private volatile long renewedAt;

  private volatile boolean renewedOnce;

  LeaderElector(
      KubernetesClient client,
      ApiCalls calls,
      LeaderElectionSettings settings,
      BooleanSupplier closed,
      Runnable startedLeading,
      Runnable stoppedLeading,
      LongSupplier nanoTicker) {
    this.nanoTicker = nanoTicker;
    this.client = client;
    this.calls = calls;
    this.settings = settings;
    this.closed = closed;
    this.startedLeading = startedLeading;
    this.stoppedLeading = stoppedLeading;
  }

  /**
   * GETs the Lease once, with the usual budget and retries: absent is fine (the elector creates
   * it); refused is not.
   *
   * @throws RequestFailedException if the request failed for good
   */
  void checkAccess() {
    LeaderElectionSettings e = settings;
    String what = "get lease " + e.namespace() + "/" + e.leaseName();
    try {
      calls.call(
          what, () -> client.leases().inNamespace(e.namespace()).withName(e.leaseName()).get());
    } catch (KubernetesClientException ex) {
      throw new RequestFailedException(what, ex);
    }
  }

  /** Whether it runs for the Lease: started and not closed. */
  synchronized boolean running() {
    return running != null;
  }

  /**
   * Runs for the Lease. fabric8's elector ends once this replica loses the lease, so a replica that
   * lost it (or never won) stands again, after the retry period.
   */
  synchronized void campaign() {
    LeaderElectionSettings e = settings;
    if (closed.getAsBoolean()) {
      return;
    }
    var config =
        new LeaderElectionConfigBuilder()
            .withName("tally-aggregator")
            .withLock(new RenewalsSeen(new LeaseLock(e.namespace(), e.leaseName(), e.identity())))
            .withLeaseDuration(e.leaseDuration())
            .withRenewDeadline(e.renewDeadline())
            .withRetryPeriod(e.retryPeriod())
            .withReleaseOnCancel(true)
            .withLeaderCallbacks(
                new LeaderCallbacks(
                    () -> {
                      LOG.info("{} won the lease", e.identity());
                      startedLeading.run();
                    },
                    () -> {
                      LOG.info("{} lost the lease: stop writing", e.identity());
                      stoppedLeading.run();
                    },
                    leader -> LOG.info("the leader is now {}", leader)))
            .build();
    CompletableFuture<?> elector = client.leaderElector().withConfig(config).build().start();
    running = elector;
    elector.whenComplete(
        (ignored, failure) -> {
          if (failure != null && !closed.getAsBoolean()) {
            LOG.warn(
                "leader election for lease {}/{} failed: {}",
                e.namespace(),
                e.leaseName(),
                RequestFailedException.rootCause(failure));
          }
          if (!closed.getAsBoolean()) {
            LOG.info("{} stands for the lease again", e.identity());
            CompletableFuture.runAsync(
                this::campaign,
                CompletableFuture.delayedExecutor(e.retryPeriod().toNanos(), TimeUnit.NANOSECONDS));
          }
        });
  }

  /**
   * Whether less than the renew deadline has passed since the last acquisition or renewal of the
   * Lease by this replica began, on the elector's clock: false before the first, and from the
   * moment a renewal is overdue (a pause past it) until the next one succeeds.
   */
  boolean withinRenewDeadline() {
    return renewedOnce && nanoTicker.getAsLong() - renewedAt < settings.renewDeadline().toNanos();
  }

  /**
   * The Lease lock, telling this elector of each acquisition or renewal by this replica that the
   * server accepted. fabric8 writes the Lease only through {@link Lock#create} and {@link
   * Lock#update}, with a record whose holder is this replica when it acquires or renews.
   */
  private final class RenewalsSeen implements Lock {
    private final Lock lock;

    RenewalsSeen(Lock lock) {
      this.lock = lock;
    }

    @Override
    public LeaderElectionRecord get(KubernetesClient kubernetes) {
      return lock.get(kubernetes);
    }

    @Override
    public void create(KubernetesClient kubernetes, LeaderElectionRecord record) {
      long sent = nanoTicker.getAsLong();
      lock.create(kubernetes, record);
      renewed(record, sent);
    }

    @Override
    public void update(KubernetesClient kubernetes, LeaderElectionRecord record) {
      long sent = nanoTicker.getAsLong();
      lock.update(kubernetes, record);
      renewed(record, sent);
    }

    @Override
    public String identity() {
      return lock.identity();
    }

    @Override
    public String describe() {
      return lock.describe();
    }

    private void renewed(LeaderElectionRecord record, long sent) {
      if (settings.identity().equals(record.getHolderIdentity())) {
        renewedAt = sent;
        renewedOnce = true;
      } else {
        renewedOnce = false;
      }
    }
  }

  /** Stops running for the Lease and, if it ran, releases it. Never throws. */
  void close() {
    Future<?> elector;
    synchronized (this) {
      elector = running;
      running = null;
    }
    if (elector != null) {
      elector.cancel(true);
      release();
    }
  }

  /**
   * Clears the Lease's holder if it is still this replica. fabric8's release on cancel only cuts
   * the lease's duration to 1 s: it sends the cleared holder in a merge patch, which drops a null.
   */
  private void release() {
    LeaderElectionSettings e = settings;
    String what = "release lease " + e.namespace() + "/" + e.leaseName();
    try {
      boolean released =
          calls.call(
              what,
              () -> {
                var lease =
                    client.leases().inNamespace(e.namespace()).withName(e.leaseName()).get();
                if (lease == null
                    || lease.getSpec() == null
                    || !e.identity().equals(lease.getSpec().getHolderIdentity())) {
                  return false;
                }
                lease.getSpec().setHolderIdentity(null);
                // an update with the resourceVersion read: a replica that took the Lease in
                // between keeps it (409)
                client.leases().inNamespace(e.namespace()).resource(lease).update();
                return true;
              });
      if (released) {
        LOG.info("{} released the lease {}/{}", e.identity(), e.namespace(), e.leaseName());
      }
    } catch (RuntimeException ex) {
      // a refused or failed request, or a client closed under this controller (the process is
      // going away): close() never throws for it; the Lease expires within its duration
      LOG.warn(
          "{} could not release the lease {}/{}: {}; it expires within its duration",
          e.identity(),
          e.namespace(),
          e.leaseName(),
          RequestFailedException.rootCause(ex));
    }
  }
}
