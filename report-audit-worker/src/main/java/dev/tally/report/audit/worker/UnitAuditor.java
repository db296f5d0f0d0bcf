package dev.tally.report.audit.worker;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.audit.PageSizeAdvisor;
import dev.tally.report.audit.WorkUnit;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Audits one unit: a paged LIST ({@code limit} from the {@link PageSizeAdvisor}, {@code continue}
 * tokens followed to the end), the user's evaluation per object, one partial report per object
 * through the adapter's {@link PartialReportPublisher} (producer {@code audit/<group>}: one object
 * per (group, subject) whichever member evaluates it, so a unit taken over rewrites its objects
 * rather than copying them; coverage = the policies audited). An expired continue token (410)
 * restarts the unit from the first page, since tokens cannot be resumed; 429 and 5xx are retried by
 * {@link ApiCalls}. The unit is done only once every evaluation is written.
 */
final class UnitAuditor {
  private static final Logger LOG = LoggerFactory.getLogger(UnitAuditor.class);

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final PartialReportPublisher publisher;
  private final AuditEvaluator evaluator;
  private final Set<CoverageKey> coverage;
  private final PageSizeAdvisor pages;
  private final Clock clock;
  private final String producer;
  private final int maxRestarts;
  private final Duration publishTimeout;

  UnitAuditor(
      KubernetesClient client,
      ApiCalls calls,
      PartialReportPublisher publisher,
      AuditEvaluator evaluator,
      Set<CoverageKey> coverage,
      PageSizeAdvisor pages,
      Clock clock,
      String group,
      int maxRestarts,
      Duration publishTimeout) {
    this.client = client;
    this.calls = calls;
    this.publisher = publisher;
    this.evaluator = evaluator;
    this.coverage = Set.copyOf(coverage);
    this.pages = pages;
    this.clock = clock;
    this.producer = "audit/" + group;
    this.maxRestarts = maxRestarts;
    this.publishTimeout = publishTimeout;
  }

  String producer() {
    return producer;
  }

  /**
   * @return how many objects were audited
   * @throws UnitAuditFailure when the unit could not be audited completely this attempt
   */
  long audit(WorkUnit unit, AuditTarget target, long generation) throws UnitAuditFailure {
    int limit = pages.pageSize(target.estimatedObjectBytes(), unit.weight());
    for (int restart = 0; ; restart++) {
      try {
        return auditOnce(unit, target, generation, limit);
      } catch (KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_GONE && restart < maxRestarts) {
          LOG.info("continue token of {} expired (410); restarting the unit", unit.id());
          continue;
        }
        throw new UnitAuditFailure(
            "LIST failed with "
                + e.getCode()
                + (e.getCode() == 410 ? " Gone" : "")
                + ": "
                + brief(e),
            e);
      }
    }
  }

  private long auditOnce(WorkUnit unit, AuditTarget target, long generation, int limit)
      throws UnitAuditFailure {
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    long objects = 0;
    @Nullable String token = null;
    do {
      ListOptions options =
          new ListOptionsBuilder().withLimit((long) limit).withContinue(token).build();
      GenericKubernetesResourceList page =
          calls.call("list " + unit.id(), () -> listPage(unit, target, options));
      for (GenericKubernetesResource object : page.getItems()) {
        writes.add(publish(object, target, generation));
        objects++;
      }
      token = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (token != null && !token.isEmpty());
    try {
      CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
          .get(publishTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new UnitAuditFailure("publishing results failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new UnitAuditFailure("publishing results timed out after " + publishTimeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UnitAuditFailure("interrupted while publishing", e);
    }
    LOG.debug("audited {}: {} objects", unit.id(), objects);
    return objects;
  }

  private GenericKubernetesResourceList listPage(
      WorkUnit unit, AuditTarget target, ListOptions options) {
    var resources = client.genericKubernetesResources(target.context());
    if (!target.namespaced()) {
      return resources.list(options);
    }
    return unit.wholeKind()
        ? resources.inAnyNamespace().list(options)
        : resources.inNamespace(unit.namespace()).list(options);
  }

  private CompletableFuture<Void> publish(
      GenericKubernetesResource object, AuditTarget target, long generation) {
    var meta = object.getMetadata();
    Subject subject =
        new Subject(
            target.gvk().apiVersion(),
            target.gvk().kind(),
            meta.getNamespace() == null ? "" : meta.getNamespace(),
            meta.getName(),
            meta.getUid() == null ? "" : meta.getUid());
    Instant now = clock.instant();
    try {
      var evaluation =
          new PartialReport(
              producer,
              subject,
              meta.getResourceVersion() == null ? "" : meta.getResourceVersion(),
              coverage,
              evaluator.evaluate(object),
              new Timestamp(now.getEpochSecond(), now.getNano()),
              generation);
      return publisher.publish(evaluation);
    } catch (RuntimeException e) {
      // a bad evaluation or a saturated publisher fails the unit; it is retried, never skipped
      return CompletableFuture.failedFuture(e);
    }
  }

  private static String brief(KubernetesClientException e) {
    String m =
        e.getStatus() != null && e.getStatus().getMessage() != null
            ? e.getStatus().getMessage()
            : e.getMessage();
    return m == null ? "" : m.length() > 200 ? m.substring(0, 200) : m;
  }
}
