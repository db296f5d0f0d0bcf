package dev.tally.report.audit.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.MockCluster;
import dev.tally.report.fabric8.VirtualTime;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class LeaseMembershipTest {
  private static final Duration LEASE = Duration.ofSeconds(15);

  KubernetesMockServer server;
  KubernetesClient client;
  private final VirtualTime time = new VirtualTime(Instant.parse("2026-03-01T10:00:00Z"));

  @BeforeEach
  void setUp() {
    client = MockCluster.client(server);
  }

  @AfterEach
  void tearDown() {
    MockCluster.close(client);
  }

  private LeaseMembership member(String id) {
    var calls =
        new ApiCalls(
            new ApiBudget(1000, 1000, time::nanos, time),
            RetryPolicy.defaults(),
            new Random(1),
            time,
            TallyMetrics.NONE);
    return new LeaseMembership(client, calls, "tally", "g", id, LEASE, LEASE.multipliedBy(3), time);
  }

  @Test
  void aMemberIsLiveWhileItRenewsAndGoneOneLeaseDurationAfterItStops() {
    LeaseMembership a = member("a");
    LeaseMembership b = member("b");
    a.renew();
    b.renew();
    assertThat(a.live()).containsExactly("a", "b");

    time.advance(Duration.ofSeconds(14));
    a.renew(); // b stops renewing
    assertThat(a.live()).containsExactly("a", "b");
    time.advance(Duration.ofSeconds(1));
    assertThat(a.live()).as("b's lease expired at renew + 15 s").containsExactly("a");
    assertThat(client.leases().inNamespace("tally").list().getItems()).hasSize(2);

    // b comes back before its lease is cleaned: it is live again
    b.renew();
    assertThat(a.live()).containsExactly("a", "b");
  }

  @Test
  void orphanLeasesAreDeletedAfterTheGraceAndLeavingIsImmediate() {
    LeaseMembership a = member("a");
    LeaseMembership b = member("b");
    LeaseMembership c = member("c");
    a.renew();
    b.renew();
    c.renew();
    c.leave();
    assertThat(a.live()).containsExactly("a", "b");

    for (int i = 0; i < 5; i++) {
      time.advance(Duration.ofSeconds(14));
      a.renew();
    }
    // b stopped 70 s ago: expired at 15 s, orphaned after 15 + 45 s
    assertThat(a.live()).containsExactly("a");
    assertThat(client.leases().inNamespace("tally").list().getItems())
        .extracting(l -> l.getSpec().getHolderIdentity())
        .containsExactly("a");
  }
}
