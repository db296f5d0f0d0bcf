package dev.tally.report.fabric8.producer;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.LogFields;
import dev.tally.report.fabric8.internal.OwnedPartialReports;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.merge.publish.Publication;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adoption of {@link PartialReportPublisher}: partial reports written while their subject had
 * no uid get the uid and the owner reference once {@link SubjectResolver} finds the subject, and
 * are deleted once their pending-since time is older than the grace period.
 */
final class Adoption {
  private static final Logger LOG = LoggerFactory.getLogger(Adoption.class);

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final SubjectResolver resolver;
  private final PartialReportWrites writes;
  private final Clock clock;
  private final Duration grace;

  Adoption(
      KubernetesClient client,
      ApiCalls calls,
      SubjectResolver resolver,
      PartialReportWrites writes,
      Clock clock,
      Duration grace) {
    this.client = client;
    this.calls = calls;
    this.resolver = resolver;
    this.writes = writes;
    this.clock = clock;
    this.grace = grace;
  }

  /** See {@link PartialReportPublisher#adoptPending()}. */
  AdoptionOutcome adoptPending() {
    int adopted = 0;
    int removed = 0;
    int waiting = 0;
    List<CustomResource<PartialReportSpec, Void>> candidates = new ArrayList<>();
    candidates.addAll(OwnedPartialReports.inAnyNamespace(client, calls));
    candidates.addAll(OwnedPartialReports.clusterScoped(client, calls));
    for (var resource : candidates) {
      PartialReport evaluation;
      try {
        evaluation = ReportCodec.decodePartial(resource);
      } catch (InvalidReportException e) {
        continue; // not ours to judge here: the aggregator rejects it
      }
      if (evaluation.adopted()) {
        continue;
      }
      var uid = resolver.uidOf(evaluation.subject());
      if (uid.isPresent()) {
        writes.write(evaluation.withSubjectUid(uid.get()));
        adopted++;
        LOG.debug("adopted {}", evaluation.subject().display());
      } else if (expired(resource)) {
        String name = resource.getMetadata().getName();
        String rv = resource.getMetadata().getResourceVersion();
        try {
          calls.run(
              "delete " + name,
              () ->
                  writes
                      .partialResource(evaluation.subject(), name)
                      .lockResourceVersion(rv)
                      .delete());
          removed++;
          writes.forget(evaluation.subject(), name);
          LogFields.about(LOG.atInfo(), evaluation.subject())
              .log("removed the partial report about this subject: it never appeared");
        } catch (KubernetesClientException e) {
          if (!ApiCalls.changedMeanwhile(e)) {
            throw e;
          }
          waiting++; // changed meanwhile: look again next pass
        }
      } else {
        waiting++;
      }
    }
    return new AdoptionOutcome(adopted, removed, waiting);
  }

  private boolean expired(HasMetadata resource) {
    return Publication.adoptionExpired(
        PartialReportWrites.annotation(resource, WireNames.PENDING_SINCE_ANNOTATION),
        grace,
        clock.instant());
  }
}
