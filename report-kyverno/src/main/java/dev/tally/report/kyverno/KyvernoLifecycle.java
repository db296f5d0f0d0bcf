package dev.tally.report.kyverno;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.input.InputContext;
import dev.tally.report.fabric8.input.InputLifecycle;
import dev.tally.report.fabric8.internal.LogFields;
import dev.tally.report.merge.kyverno.KyvernoMapping;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link KyvernoInput}'s lifecycle as the controller sees it: {@link IntermediateReports} moves and
 * asks, and this turns what it observed into seeds ({@link KyvernoMapping#seed}, report-merge's
 * rule) when the per-resource reports are the state.
 */
final class KyvernoLifecycle implements InputLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(KyvernoLifecycle.class);

  private final IntermediateReports reports;
  private final InputContext context;

  KyvernoLifecycle(KyvernoInput settings, InputContext context) {
    this.reports =
        new IntermediateReports(
            context.client(), context.calls(), settings, context.metrics(), context.clock());
    this.context = context;
  }

  @Override
  public boolean aggregatesAreTheState() {
    return reports.deletesAfterMerge();
  }

  @Override
  public Optional<Duration> adoptionRetry() {
    return Optional.of(reports.adoptionRetry());
  }

  @Override
  public void termEnded() {
    reports.clear();
  }

  @Override
  public void awaitAdoption(String key, HasMetadata object, Subject subject) {
    reports.awaitAdoption(key, object, subject);
  }

  @Override
  public void beforeMerge(String key, HasMetadata object) {
    reports.checkMergeCaps(key, object);
  }

  @Override
  public void merged(String key, HasMetadata object) {
    reports.merged(key, object);
  }

  @Override
  public void gone(String key) {
    reports.gone(key);
  }

  @Override
  public void adoptPending(Consumer<HasMetadata> found) {
    reports.adopt(found);
  }

  @Override
  public Observation observed(List<AggregateReport> owned) {
    IntermediateReports.Observation seen = reports.observed(owned);
    Timestamp seededAt = context.now().get();
    List<PartialReport> seeds = new ArrayList<>();
    for (AggregateReport report : seen.seeds()) {
      try {
        seeds.addAll(KyvernoMapping.seed(report, context.clockRule(), seededAt));
      } catch (InvalidReportException e) {
        LogFields.about(LOG.atWarn(), report.ref())
            .log("the report does not seed the aggregator: {}", e.getMessage());
      }
    }
    if (!seen.seeds().isEmpty()) {
      LOG.info("seeded from {} per-resource reports", seen.seeds().size());
    }
    return new Observation(seeds, seen.gone());
  }

  @Override
  public void reread(Collection<ReportRef> refs, List<AggregateReport> observed) {
    reports.reread(refs, observed);
  }

  @Override
  public void written(ChangeSet changes, Set<String> unsettled) {
    reports.written(changes, unsettled);
  }
}
