package dev.tally.report.fabric8;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.merge.KubernetesNames;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a rejected partial report visible (design, section 9): {@link TallyMetrics#partialRejected}
 * with its {@link RejectionReason}, a WARN line with the field and reason, and, when enabled, a
 * Warning Event {@code Rejected} on the object, named from its key and resourceVersion so that one
 * version gets one Event. A failure to record the Event is logged and changes nothing else.
 */
final class RejectionEvents {
  private static final Logger LOG = LoggerFactory.getLogger(RejectionEvents.class);

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final TallyMetrics metrics;
  private final Clock clock;
  private final boolean emitEvents;

  RejectionEvents(
      KubernetesClient client,
      ApiCalls calls,
      TallyMetrics metrics,
      Clock clock,
      boolean emitEvents) {
    this.client = client;
    this.calls = calls;
    this.metrics = metrics;
    this.clock = clock;
    this.emitEvents = emitEvents;
  }

  /** {@code resource}, known as {@code key}, was refused with {@code e}. */
  void reject(String key, HasMetadata resource, InvalidReportException e) {
    metrics.partialRejected(RejectionReason.of(e));
    LOG.warn("rejected {}: {}", key, e.getMessage());
    if (!emitEvents) {
      return;
    }
    String version = key + "@" + resource.getMetadata().getResourceVersion();
    var meta = resource.getMetadata();
    String namespace =
        meta.getNamespace() == null || meta.getNamespace().isEmpty()
            ? "default"
            : meta.getNamespace();
    String message = e.getMessage();
    if (message.length() > 1000) {
      message = message.substring(0, 1000);
    }
    String time = Instant.now(clock).toString();
    var event =
        new EventBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(meta.getName() + "." + KubernetesNames.digest(version, 12))
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withApiVersion(resource.getApiVersion())
                    .withKind(resource.getKind())
                    .withNamespace(meta.getNamespace())
                    .withName(meta.getName())
                    .withUid(meta.getUid())
                    .withResourceVersion(meta.getResourceVersion())
                    .build())
            .withType("Warning")
            .withReason("Rejected")
            .withMessage(message)
            .withNewSource()
            .withComponent("tally-aggregator")
            .endSource()
            .withFirstTimestamp(time)
            .withLastTimestamp(time)
            .withCount(1)
            .build();
    try {
      calls.call("event " + key, () -> client.v1().events().resource(event).create());
    } catch (RuntimeException ex) {
      LOG.debug("could not record an event for {}: {}", key, ex.toString());
    }
  }
}
