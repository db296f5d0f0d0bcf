package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.testing.AggregatorEvent;
import dev.tally.report.api.testing.RandomModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A tenant that may write partial reports in its own namespace (as Kyverno's namespace admins may
 * write EphemeralReports) can claim any uid; nothing it states or deletes there changes what any
 * other namespace's aggregates hold (docs/DESIGN.md, "Trust model").
 */
class TenantIsolationProperties {
  private static final String TENANT = "tenant-a";

  @Test
  void claimsAndDeletionsOfAnotherNamespacesUidsNeverChangeThatNamespacesAggregates() {
    Fixtures.forEachStream(
        25,
        (events, r, config) -> {
          List<AggregatorEvent> withTenant = interleave(events, forgeries(events, r), r);
          List<AggregateReport> honest = outsideTenant(Fixtures.replay(config, events));
          List<AggregateReport> attacked = outsideTenant(Fixtures.replay(config, withTenant));
          assertThat(attacked).isEqualTo(honest);
          // the specification agrees: the tenant's tombstones hide nothing of the others
          assertThat(outsideTenant(Fixtures.fold(withTenant)))
              .isEqualTo(outsideTenant(Fixtures.fold(events)));
        });
  }

  @Test
  void aSubjectDeletedInItsNamespaceStaysDeletedWhateverATenantClaims() {
    Subject pod = RandomModel.subject(0);
    Subject ghost = Subject.of("v1", "Pod", TENANT, "ghost", pod.uid());
    RandomModel m = new RandomModel(new Random(7), 1);
    PartialReport real = m.partial(pod);
    var aggregator = Fixtures.aggregator(Fixtures.randomConfig(new Random(1)));
    aggregator.apply(real);
    aggregator.apply(m.partial(ghost));
    aggregator.deleteSubject(TENANT, pod.uid(), Timestamp.ofSeconds(2_000_000_000L));
    // the tenant's deletion hid nothing of the real subject, nor anything later about it
    assertThat(aggregator.snapshot().registers().keySet())
        .allSatisfy(id -> assertThat(id.namespace()).isEqualTo(pod.namespace()))
        .isNotEmpty()
        .isEqualTo(
            Fixtures.replay(aggregator.config(), List.of(new AggregatorEvent.Apply(real)))
                .snapshot()
                .registers()
                .keySet());
  }

  /**
   * The tenant's events: claims in its namespace of the uids the stream speaks of, and deletions.
   */
  private static List<AggregatorEvent> forgeries(List<AggregatorEvent> events, Random r) {
    RandomModel m = new RandomModel(r, 6);
    List<AggregatorEvent> forged = new ArrayList<>();
    for (AggregatorEvent e : events) {
      String uid =
          e instanceof AggregatorEvent.Apply a
              ? a.partial().subject().uid()
              : ((AggregatorEvent.Delete) e).uid();
      Subject claim = Subject.of("v1", "Pod", TENANT, "ghost-" + r.nextInt(3), uid);
      if (r.nextInt(3) == 0) {
        forged.add(new AggregatorEvent.Delete(TENANT, uid, m.timestamp()));
      } else {
        forged.add(new AggregatorEvent.Apply(m.partial(claim)));
      }
    }
    return forged;
  }

  /** Both streams in one, each in its own order, their events mixed at random. */
  private static List<AggregatorEvent> interleave(
      List<AggregatorEvent> a, List<AggregatorEvent> b, Random r) {
    List<AggregatorEvent> out = new ArrayList<>(a.size() + b.size());
    int i = 0;
    int j = 0;
    while (i < a.size() || j < b.size()) {
      if (j >= b.size() || (i < a.size() && r.nextBoolean())) {
        out.add(a.get(i++));
      } else {
        out.add(b.get(j++));
      }
    }
    return out;
  }

  private static List<AggregateReport> outsideTenant(DefaultReportAggregator aggregator) {
    return aggregator.aggregates().stream()
        .filter(report -> !report.ref().namespace().equals(TENANT))
        .toList();
  }

  private static java.util.Map<ReportState.RegisterId, ReportState.Content> outsideTenant(
      ReportState state) {
    var registers = new java.util.HashMap<>(state.registers());
    registers.keySet().removeIf(id -> id.namespace().equals(TENANT));
    return registers;
  }
}
