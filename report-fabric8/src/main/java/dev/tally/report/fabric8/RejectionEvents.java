package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.LogFields;
import dev.tally.report.fabric8.metrics.RejectionReason;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.merge.names.KubernetesNames;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a rejected partial report visible (design, section 9): {@link TallyMetrics#partialRejected}
 * with its {@link RejectionReason} (and {@link TallyMetrics#capacityReached} naming the cap of a
 * {@link CapacityExceededException}), a WARN line with the field and reason, and, when enabled, a
 * Warning Event {@code Rejected} on the object, named from its key and resourceVersion so that one
 * version gets one Event. A failure to record the Event is logged and changes nothing else.
 *
 * <p>Events and WARN lines are shared fairly: each namespace has its own token bucket ({@link
 * #BURST_PER_NAMESPACE} at once, one more every {@link #REFILL_EVERY}), so a namespace flooding
 * refused objects spends its own share of the API server's requests and never another's. A
 * rejection past the share is still counted, logged at DEBUG and counted by {@link
 * TallyMetrics#rejectionEventSuppressed}.
 */
final class RejectionEvents {
  private static final Logger LOG = LoggerFactory.getLogger(RejectionEvents.class);

  /** Events one namespace may record at once. */
  static final int BURST_PER_NAMESPACE = 10;

  /** A namespace's share of Events grows by one this often, up to the burst. */
  static final Duration REFILL_EVERY = Duration.ofSeconds(6);

  /** Namespaces whose buckets are kept; past it, buckets full again are forgotten. */
  private static final int MAX_BUCKETS = 10_000;

  /** One namespace's share: the tokens it had at {@code at}. */
  private static final class Bucket {
    double tokens = BURST_PER_NAMESPACE;
    Instant at;

    Bucket(Instant at) {
      this.at = at;
    }

    double tokensAt(Instant now) {
      double refill = (double) Duration.between(at, now).toNanos() / REFILL_EVERY.toNanos();
      return Math.min(BURST_PER_NAMESPACE, tokens + Math.max(0, refill));
    }
  }

  /** Each namespace's share of Events; touched from the aggregator thread only. */
  private final Map<String, Bucket> buckets = new HashMap<>();

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
    counted(e);
    record(key, resource, "Rejected", "rejected", e.getMessage(), "");
  }

  /**
   * A partial report was refused for {@code e}: {@link TallyMetrics#partialRejected}, and {@link
   * TallyMetrics#capacityReached} when a cap refused it. No Event: {@link #reject} records one for
   * an input object; a statement of an input's source has no object to record it on.
   */
  void counted(InvalidReportException e) {
    metrics.partialRejected(RejectionReason.of(e));
    if (e instanceof CapacityExceededException cap) {
      metrics.capacityReached(cap.cap());
    }
  }

  /**
   * {@code resource}, known as {@code key} and refused already, is not held at all, since {@code
   * cap} keeps the informers from holding even its stripped copy ({@link InformerStores}): {@link
   * TallyMetrics#capacityReached} and a Warning Event {@code NotHeld} naming the cap, shared fairly
   * as the rejections' are.
   */
  void notHeld(String key, HasMetadata resource, CapacityExceededException cap) {
    metrics.capacityReached(cap.cap());
    record(key, resource, "NotHeld", "not holding", cap.getMessage(), "/" + cap.cap());
  }

  /**
   * The API server refused the content of {@code report} for good ({@code failure}): a Warning
   * Event {@code WriteRefused} on the report that could not be written, in its namespace (where the
   * tenant whose input made it looks; its input objects may be many, or deleted once merged), named
   * from the refused content, so that one content gets one Event; shared fairly as the rejections'
   * are.
   */
  void writeRefused(WriteFailure failure, AggregateReport report) {
    record(
        failure.ref().toString(),
        ReportCodec.encode(report),
        "WriteRefused",
        "the API server refused",
        failure.code() + ": " + failure.reason() + " (not written again until its content changes)",
        "/" + report.contentHash());
  }

  /**
   * A WARN line and a Warning Event with {@code reason} on {@code resource}, within its namespace's
   * share; the Event is named from the object's key, resourceVersion and {@code salt}, so that one
   * version gets one Event of each kind.
   */
  private void record(
      String key, HasMetadata resource, String reason, String verb, String message, String salt) {
    var meta = resource.getMetadata();
    String ns = meta.getNamespace() == null ? "" : meta.getNamespace();
    if (!take(ns)) {
      metrics.rejectionEventSuppressed(ns);
      LogFields.about(LOG.atDebug(), resource)
          .log("{} (namespace over its share of Events): {}", verb, message);
      return;
    }
    LogFields.about(LOG.atWarn(), resource).log("{}: {}", verb, message);
    if (!emitEvents) {
      return;
    }
    String version = key + "@" + meta.getResourceVersion() + salt;
    String namespace =
        meta.getNamespace() == null || meta.getNamespace().isEmpty()
            ? "default"
            : meta.getNamespace();
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
            .withReason(reason)
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

  /** Whether {@code namespace} may record one more Event now; takes it if so. */
  private boolean take(String namespace) {
    Instant now = clock.instant();
    Bucket b = buckets.get(namespace);
    if (b == null) {
      if (buckets.size() >= MAX_BUCKETS) {
        buckets.values().removeIf(x -> x.tokensAt(now) >= BURST_PER_NAMESPACE);
      }
      b = new Bucket(now);
      buckets.put(namespace, b);
    }
    double tokens = b.tokensAt(now);
    b.at = now;
    if (tokens < 1) {
      b.tokens = tokens;
      return false;
    }
    b.tokens = tokens - 1;
    return true;
  }
}
