package dev.tally.report.josdk;

import dev.tally.report.fabric8.LeaderElectionSettings;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.health.Status;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Carries {@link TallyReports} on the controller's lifecycle: started with the controller's event
 * sources, stopped with them. It fires no events and has no secondary resources.
 */
final class TallyEventSource<P extends HasMetadata> extends AbstractEventSource<TallyReports, P> {
  private final TallyReports reports;
  private final KubernetesClient client;
  private final @Nullable LeaderElectionSettings lease;

  TallyEventSource(
      TallyReports reports, KubernetesClient client, @Nullable LeaderElectionSettings lease) {
    super(TallyReports.class, "tally-" + reports.producer());
    this.reports = reports;
    this.client = client;
    this.lease = lease;
  }

  @Override
  public void start() throws OperatorException {
    reports.start(client, lease);
    super.start();
  }

  @Override
  public void stop() throws OperatorException {
    super.stop();
    reports.stop();
  }

  @Override
  public Set<TallyReports> getSecondaryResources(P primary) {
    return Set.of();
  }

  @Override
  public Status getStatus() {
    return reports.running() ? Status.HEALTHY : Status.UNHEALTHY;
  }

  /** The Lease the aggregator elects with, if any. */
  @Nullable LeaderElectionSettings lease() {
    return lease;
  }
}
