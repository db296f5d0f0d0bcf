package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.testing.AggregatorEvent;
import dev.tally.report.api.testing.RandomModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Namespace isolation (docs/DESIGN.md, "Namespace isolation"): registers are keyed by (namespace,
 * uid, source, policy), so a tenant publishing in namespace A can never change, hide, retract or
 * count against the caps of anything in another namespace, whatever uid it claims.
 */
class IsolationProperties {
  private static final String TENANT = "alpha";

  /**
   * For any stream of events and any partial reports a tenant of {@link #TENANT} slips in between
   * them (claiming uids, kinds and names of subjects in other namespaces, with later times, empty
   * coverage retractions and bursts of results), the aggregates of every other namespace are the
   * same as without the tenant's reports, after every flush.
   */
  @Test
  void noPartialInOneNamespaceChangesAnother() {
    Fixtures.forEachStream(
        30,
        (events, random, drawn) -> {
          // small caps, so that a tenant who could count against another namespace would be seen
          AggregatorConfig config =
              new AggregatorConfig(
                  drawn.grouping(),
                  drawn.format(),
                  drawn.limits(),
                  InputCaps.defaults()
                      .withMaxResultsPerNamespace(40)
                      .withMaxSubjectsPerProducer(4)
                      .withMaxResultsPerPartial(12),
                  3600);
          var alone = Fixtures.aggregator(config);
          var besideTenant = Fixtures.aggregator(config);
          for (AggregatorEvent e : events) {
            if (random.nextInt(2) == 0) {
              PartialReport hostile = hostile(random);
              try {
                besideTenant.apply(hostile);
              } catch (CapacityExceededException refused) {
                // a refusal is the tenant's own problem: it changes nothing
              }
            }
            boolean refusedAlone = applied(e, alone);
            boolean refusedBeside = applied(e, besideTenant);
            if (!isTenants(e)) {
              assertThat(refusedBeside)
                  .as("refused beside the tenant: %s", e)
                  .isEqualTo(refusedAlone);
            }
            alone.flush();
            besideTenant.flush();
            assertThat(outsideTenant(besideTenant.aggregates()))
                .as("after %s", e)
                .isEqualTo(outsideTenant(alone.aggregates()));
          }
        });
  }

  /** Whether the event was refused by a cap. */
  private static boolean applied(AggregatorEvent e, ReportAggregator a) {
    try {
      e.applyTo(a);
      return false;
    } catch (CapacityExceededException refused) {
      return true;
    }
  }

  private static boolean isTenants(AggregatorEvent e) {
    return e instanceof AggregatorEvent.Apply apply
        && apply.partial().subject().namespace().equals(TENANT);
  }

  private static List<AggregateReport> outsideTenant(List<AggregateReport> reports) {
    return reports.stream().filter(r -> !r.ref().namespace().equals(TENANT)).toList();
  }

  /**
   * A partial report in the tenant's namespace about a uid, kind and name of any subject of the
   * model, in any namespace, late in time, retracting or flooding.
   */
  private static PartialReport hostile(Random random) {
    RandomModel model = new RandomModel(random, 6);
    Subject victim = RandomModel.subject(random.nextInt(6));
    Subject forged =
        Subject.of(victim.apiVersion(), victim.kind(), TENANT, victim.name(), victim.uid());
    CoverageKey key = model.key();
    List<Result> results = new ArrayList<>();
    int n = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(10);
    for (int i = 0; i < n; i++) {
      results.add(model.result(forged, key));
    }
    return PartialReport.builder()
        .producer(model.pick(RandomModel.PRODUCERS))
        .subject(forged)
        .coverage(Set.of(key))
        .results(results)
        .observedAt(new Timestamp(random.nextInt(12), random.nextInt(3)))
        .generation(random.nextInt(3))
        .build();
  }

  @Test
  void aUidClaimedInAnotherNamespaceCannotRetractTheVictimsResults() {
    ReportAggregator a = ReportAggregator.builder().build();
    Subject victim = Subject.of("v1", "Pod", "beta", "db-0", "uid-db-0");
    CoverageKey key = CoverageKey.of("kyverno", "require-labels");
    a.apply(
        PartialReport.builder()
            .producer("background")
            .subject(victim)
            .results(List.of(fail(key)))
            .observedAt(Timestamp.ofSeconds(10))
            .build());
    a.flush();

    a.apply(
        PartialReport.builder()
            .producer("background")
            .subject(Subject.of("v1", "Pod", TENANT, "db-0", "uid-db-0"))
            .coverage(Set.of(key))
            .observedAt(Timestamp.ofSeconds(99))
            .build());

    assertThat(a.flush().isEmpty()).isTrue();
    assertThat(a.aggregates())
        .singleElement()
        .satisfies(r -> assertThat(r.ref().namespace()).isEqualTo("beta"));
    assertThat(a.resultCount()).isEqualTo(1);
  }

  @Test
  void aTenantCannotDodgeItsNamespaceCapWithAnotherNamespacesUid() {
    ReportAggregator a =
        ReportAggregator.builder()
            .limits(ReportLimits.defaults())
            .caps(InputCaps.defaults().withMaxResultsPerNamespace(3))
            .build();
    CoverageKey key = CoverageKey.of("kyverno", "require-labels");
    Subject victim = Subject.of("v1", "Pod", "beta", "db-0", "uid-db-0");
    a.apply(
        PartialReport.builder()
            .producer("background")
            .subject(victim)
            .results(List.of(fail(key), fail(key, "r1"), fail(key, "r2")))
            .observedAt(Timestamp.ofSeconds(10))
            .build());

    // three results under the victim's uid in beta do not make room for three more in alpha
    PartialReport forged =
        PartialReport.builder()
            .producer("background")
            .subject(Subject.of("v1", "Pod", TENANT, "db-0", "uid-db-0"))
            .results(List.of(fail(key), fail(key, "r1"), fail(key, "r2"), fail(key, "r3")))
            .observedAt(Timestamp.ofSeconds(20))
            .build();
    var e =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            () -> a.apply(forged), CapacityExceededException.class);
    assertThat(e.field()).isEqualTo("subject.namespace");
    assertThat(a.resultCount()).isEqualTo(3);
  }

  private static Result fail(CoverageKey key) {
    return fail(key, "r0");
  }

  private static Result fail(CoverageKey key, String rule) {
    return Result.builder()
        .source(key.source())
        .policy(key.policy())
        .rule(rule)
        .status(ResultStatus.FAIL)
        .build();
  }
}
