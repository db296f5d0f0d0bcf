package dev.tally.report.audit.worker;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.WireNames;
import dev.tally.report.audit.StaleResults;
import dev.tally.report.audit.UnitStatus;
import dev.tally.report.audit.WorkUnit;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.OwnedPartialReports;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Republishes the last audit results of a unit that cannot be audited as stale, instead of letting
 * them vanish or pass for fresh. What to write is {@link StaleResults#staleCopy}'s decision (which
 * partial reports are the unit's, the marked results, their order); this class lists the
 * candidates, and writes each copy over the object it was made from, locked to the resourceVersion
 * it was read at, so a partial report rewritten meanwhile (by a fresher evaluation) is left alone.
 * The object also gets the {@code tally.dev/stale=true} label and the reason as an annotation; the
 * next successful audit rewrites it without either.
 */
final class StaleMarker {
  private static final Logger LOG = LoggerFactory.getLogger(StaleMarker.class);

  private final KubernetesClient client;
  private final ApiCalls calls;

  StaleMarker(KubernetesClient client, ApiCalls calls) {
    this.client = client;
    this.calls = calls;
  }

  /**
   * @param producer the audit group's producer, whose partial reports are the unit's results
   * @return how many partial reports were marked
   */
  int mark(WorkUnit unit, AuditTarget target, String producer, String reason) {
    List<? extends CustomResource<PartialReportSpec, Void>> candidates;
    if (!target.namespaced()) {
      candidates = OwnedPartialReports.clusterScoped(client, calls);
    } else if (unit.wholeKind()) {
      candidates = OwnedPartialReports.inAnyNamespace(client, calls);
    } else {
      candidates = OwnedPartialReports.inNamespace(client, calls, unit.namespace());
    }
    String why = UnitStatus.failureReason(reason);
    int marked = 0;
    for (var resource : new ArrayList<>(candidates)) {
      Optional<PartialReport> copy;
      try {
        PartialReport last = ReportCodec.decodePartial(resource);
        copy = StaleResults.staleCopy(last, unit, producer, why);
      } catch (InvalidReportException e) {
        LOG.debug("not marking {}: {}", resource.getMetadata().getName(), e.getMessage());
        continue;
      }
      if (copy.isEmpty()) {
        continue;
      }
      var meta = resource.getMetadata();
      CustomResource<PartialReportSpec, Void> desired =
          ReportCodec.encodePartial(copy.get(), meta.getName());
      var labels = new HashMap<String, String>(desired.getMetadata().getLabels());
      labels.put(WireNames.STALE_LABEL, "true");
      desired.getMetadata().setLabels(labels);
      desired.getMetadata().setAnnotations(Map.of(WireNames.STALE_REASON_ANNOTATION, why));
      desired.getMetadata().setResourceVersion(meta.getResourceVersion());
      try {
        calls.call("mark stale " + meta.getName(), () -> client.resource(desired).update());
        marked++;
      } catch (KubernetesClientException e) {
        // changed or gone since the list: what is there now is not the result judged stale
        LOG.debug("could not mark {} stale: {}", meta.getName(), e.getCode());
      }
    }
    LOG.warn(
        "unit {} cannot be audited ({}); marked {} partial reports stale", unit.id(), why, marked);
    return marked;
  }
}
