package dev.tally.report.fabric8.audit;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.OwnedPartialReports;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.merge.audit.WorkUnit;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Marks the last audit results of a unit that cannot be audited as stale, instead of letting them
 * vanish or pass for fresh: a {@code tally.dev/stale=true} label and the reason as an annotation on
 * each audit partial report about an object of the unit. The next successful audit rewrites the
 * object and so clears the mark.
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
   * @return how many partial reports were marked
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  int mark(WorkUnit unit, AuditTarget target, String reason) {
    List<? extends CustomResource<PartialReportSpec, Void>> candidates;
    if (!target.namespaced()) {
      candidates = OwnedPartialReports.clusterScoped(client, calls);
    } else if (unit.wholeKind()) {
      candidates = OwnedPartialReports.inAnyNamespace(client, calls);
    } else {
      candidates = OwnedPartialReports.inNamespace(client, calls, unit.namespace());
    }
    int marked = 0;
    for (var resource : new ArrayList<>(candidates)) {
      PartialReport evaluation;
      try {
        evaluation = ReportCodec.decodePartial(resource);
      } catch (InvalidReportException e) {
        continue;
      }
      var labels = resource.getMetadata().getLabels();
      if (!evaluation.producer().startsWith("audit/")
          || !evaluation.subject().kind().equals(target.gvk().kind())
          || !evaluation.subject().apiVersion().equals(target.gvk().apiVersion())
          || (labels != null && "true".equals(labels.get(AuditNames.STALE_LABEL)))) {
        continue;
      }
      try {
        calls.call(
            "mark stale " + resource.getMetadata().getName(),
            () ->
                ((io.fabric8.kubernetes.client.dsl.Resource) client.resource(resource))
                    .edit(
                        r -> {
                          var meta = ((CustomResource<?, ?>) r).getMetadata();
                          var l =
                              new HashMap<String, String>(
                                  meta.getLabels() == null ? java.util.Map.of() : meta.getLabels());
                          l.put(AuditNames.STALE_LABEL, "true");
                          meta.setLabels(l);
                          var a =
                              new HashMap<String, String>(
                                  meta.getAnnotations() == null
                                      ? java.util.Map.of()
                                      : meta.getAnnotations());
                          a.put(AuditNames.STALE_REASON_ANNOTATION, reason);
                          meta.setAnnotations(a);
                          return r;
                        }));
        marked++;
      } catch (KubernetesClientException e) {
        LOG.debug("could not mark {} stale: {}", resource.getMetadata().getName(), e.getCode());
      }
    }
    LOG.warn(
        "unit {} cannot be audited ({}); marked {} partial reports stale",
        unit.id(),
        reason,
        marked);
    return marked;
  }
}
