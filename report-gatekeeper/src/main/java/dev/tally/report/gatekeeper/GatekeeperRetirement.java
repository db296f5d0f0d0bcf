package dev.tally.report.gatekeeper;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.fabric8.input.InputContext;
import dev.tally.report.fabric8.input.Retirement;
import dev.tally.report.merge.gatekeeper.GatekeeperMapping;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Gatekeeper input's retirement: a run is read once, and its file is the export driver's to
 * remove (the directory, an emptyDir, is emptied with its Pod), so the aggregates are the state:
 * the first list of the owned aggregates in a term seeds the aggregator ({@link
 * GatekeeperMapping#seeds}, report-merge's rule) and the runs read after it retract against what
 * the cluster held. Nothing is deleted or adopted.
 */
final class GatekeeperRetirement implements Retirement {
  private static final Logger LOG = LoggerFactory.getLogger(GatekeeperRetirement.class);

  private final InputContext context;

  /** Whether this term was seeded already. */
  private boolean seeded;

  GatekeeperRetirement(InputContext context) {
    this.context = context;
  }

  @Override
  public void termEnded() {
    seeded = false;
  }

  @Override
  public Observation observed(List<AggregateReport> owned) {
    if (seeded) {
      return Observation.NOTHING;
    }
    GatekeeperMapping.Statements seeds =
        GatekeeperMapping.seeds(owned, context.clockRule(), context.now().get());
    seeded = true; // once made: a resync that failed before seeds again
    for (GatekeeperMapping.Refusal refused : seeds.refused()) {
      LOG.warn("{} does not seed the aggregator: {}", refused.resource(), refused.reason());
    }
    LOG.info("seeded {} resources from {} owned aggregates", seeds.reports().size(), owned.size());
    return new Observation(seeds.reports(), List.of());
  }
}
