package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.resource.PartialReportResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Rejection Events are shared fairly (docs/DESIGN.md, section 9): a namespace that floods refused
 * objects uses up its own share of Events, never another namespace's, and every rejection is still
 * counted; an Event of a cap names the cap.
 */
@EnableKubernetesMockClient(crud = true)
class RejectionEventsTest {
  KubernetesMockServer server;
  KubernetesClient client;

  private final CountingMetrics metrics = new CountingMetrics();
  private final MutableClock clock = new MutableClock(Instant.ofEpochSecond(1_800_000_000L));

  private RejectionEvents events() {
    ApiCalls calls =
        new ApiCalls(
            ApiBudget.of(1000, 1000),
            ControllerFixture.FAST_RETRIES,
            new Random(1),
            d -> {},
            metrics);
    return new RejectionEvents(client, calls, metrics, clock, true);
  }

  @Test
  void aNamespaceFloodingRefusedObjectsCannotUseUpTheEventsOfAnother() {
    RejectionEvents events = events();
    MockCluster.drainByMethod(server);
    for (int i = 0; i < 200; i++) {
      events.reject(
          "PartialReport/flood/p" + i,
          partial("flood", "p" + i),
          new InvalidReportException("spec.producer", "is required"));
    }
    events.reject(
        "PartialReport/quiet/p",
        partial("quiet", "p"),
        new InvalidReportException("spec.producer", "is required"));

    long flooded = client.v1().events().inNamespace("flood").list().getItems().size();
    assertThat(flooded)
        .as("Events in the flooding namespace: at most its burst")
        .isEqualTo(RejectionEvents.BURST_PER_NAMESPACE);
    assertThat(client.v1().events().inNamespace("quiet").list().getItems()).hasSize(1);
    assertThat(metrics.rejected.get("invalid")).as("every rejection is counted").isEqualTo(201);
    assertThat(metrics.eventsSuppressed).isEqualTo(200 - RejectionEvents.BURST_PER_NAMESPACE);

    // the share refills with time: one more Event per interval
    clock.advance(RejectionEvents.REFILL_EVERY);
    events.reject(
        "PartialReport/flood/late",
        partial("flood", "late"),
        new InvalidReportException("spec.producer", "is required"));
    assertThat(client.v1().events().inNamespace("flood").list().getItems())
        .hasSize(RejectionEvents.BURST_PER_NAMESPACE + 1);
  }

  @Test
  void aCapacityRejectionNamesTheCapInItsEventAndMetric() {
    RejectionEvents events = events();
    events.reject(
        "PartialReport/team-0/p",
        partial("team-0", "p"),
        new CapacityExceededException(
            "subject.namespace",
            "namespace 'team-0' would hold 31 registers, at most 30 allowed (cap"
                + " maxRegistersPerNamespace)",
            30,
            "maxRegistersPerNamespace"));
    var recorded = client.v1().events().inNamespace("team-0").list().getItems();
    assertThat(recorded)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getMessage()).contains("maxRegistersPerNamespace");
              assertThat(e.getInvolvedObject().getName()).isEqualTo("p");
            });
    assertThat(metrics.capsReached).containsEntry("maxRegistersPerNamespace", 1);
  }

  private static PartialReportResource partial(String namespace, String name) {
    var resource = new PartialReportResource();
    resource.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace(namespace)
            .withName(name)
            .withResourceVersion("1")
            .build());
    return resource;
  }

  /** A clock the test moves. */
  static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
