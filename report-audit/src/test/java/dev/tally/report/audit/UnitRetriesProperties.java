package dev.tally.report.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Which unit a member audits next, when it retries, and when a unit turns stale. */
class UnitRetriesProperties {
  private static final RunId RUN = new RunId(7, "0000000000000007");
  private static final ShardPlanner PLANNER = ShardPlanner.defaults();
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final UnitBackoff BACKOFF =
      new UnitBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30));

  @Test
  void aMemberTakesOnlyItsOwnUnitsThatAreNotDoneAndAreDue() {
    qt().withFixedSeed(0x4e47L)
        .withExamples(300)
        .forAll(
            AuditGenerators.units(1, 40), AuditGenerators.members(), integers().between(0, 1000))
        .checkAssert(
            (units, members, seed) -> {
              ShardPlan plan = PLANNER.plan(units, members);
              Random random = new Random(seed);
              // some units done, some failed by this member with a retry time
              RunLedger ledger = RunLedger.empty(RUN);
              UnitRetries retries = UnitRetries.none();
              for (WorkUnit u : units) {
                int pick = random.nextInt(4);
                if (pick == 0) {
                  ledger = ledger.with(u.id(), UnitStatus.done("x", 1, 1));
                } else if (pick == 1) {
                  ledger = ledger.with(u.id(), UnitStatus.failed("x", 2, "boom"));
                  retries =
                      retries
                          .failed(u.id(), T0.minusSeconds(random.nextInt(60)), BACKOFF, 3, random)
                          .retries();
                }
              }
              List<String> live = members.subList(0, 1 + random.nextInt(members.size()));
              String member = live.get(random.nextInt(live.size()));
              Map<String, String> owners =
                  PLANNER.assignRemaining(plan, ledger, AuditMembers.liveWithSelf(live, member));
              Optional<UnitRetries.Next> next =
                  retries.next(PLANNER, plan, ledger, live, member, T0);
              final UnitRetries r = retries;
              List<WorkUnit> eligible =
                  plan.units().stream()
                      .filter(u -> member.equals(owners.get(u.id())))
                      .filter(u -> !r.retryAt().getOrDefault(u.id(), Instant.MIN).isAfter(T0))
                      .toList();
              if (eligible.isEmpty()) {
                assertThat(next).isEmpty();
              } else {
                assertThat(next).isPresent();
                WorkUnit u = next.get().unit();
                assertThat(u).isEqualTo(eligible.get(0));
                assertThat(ledger.isDone(u.id())).isFalse();
                assertThat(next.get().attempt()).isEqualTo(ledger.attempts(u.id()) + 1);
              }
            });
  }

  @Test
  void aFailedUnitWaitsForItsBackoffAndTurnsStaleOnce() {
    qt().withFixedSeed(0x5a1eL)
        .withExamples(300)
        .forAll(integers().between(1, 6), integers().between(1, 12), integers().all())
        .checkAssert(
            (staleAfter, failures, seed) -> {
              WorkUnit unit = WorkUnit.ofNamespace(GroupVersionKind.of("", "v1", "Pod"), "a", 5);
              ShardPlan plan = PLANNER.plan(List.of(unit), List.of("m"));
              RunLedger ledger = RunLedger.empty(RUN);
              UnitRetries retries = UnitRetries.none();
              Random random = new Random(seed);
              Random expected = new Random(seed);
              Instant now = T0;
              int stale = 0;
              for (int n = 1; n <= failures; n++) {
                assertThat(retries.next(PLANNER, plan, ledger, List.of("m"), "m", now)).isPresent();
                ledger = ledger.with(unit.id(), UnitStatus.failed("m", n, "boom"));
                UnitRetries.Failure f = retries.failed(unit.id(), now, BACKOFF, staleAfter, random);
                assertThat(f.failures()).isEqualTo(n);
                assertThat(f.retryAt()).isEqualTo(now.plus(BACKOFF.delay(n, expected)));
                assertThat(f.turnedStale()).isEqualTo(n == staleAfter);
                stale += f.turnedStale() ? 1 : 0;
                retries = f.retries();
                if (f.retryAt().isAfter(now)) {
                  assertThat(
                          retries.next(
                              PLANNER, plan, ledger, List.of("m"), "m", f.retryAt().minusNanos(1)))
                      .as("not before its retry time")
                      .isEmpty();
                }
                now = f.retryAt();
                assertThat(retries.next(PLANNER, plan, ledger, List.of("m"), "m", now))
                    .map(UnitRetries.Next::attempt)
                    .contains(n + 1);
              }
              assertThat(stale).isEqualTo(failures >= staleAfter ? 1 : 0);
              UnitRetries after = retries.succeeded(unit.id());
              assertThat(after.failuresOf(unit.id())).isZero();
              assertThat(after.retryAt()).doesNotContainKey(unit.id());
              assertThat(after.failed(unit.id(), now, BACKOFF, staleAfter, random).failures())
                  .as("a success starts the count again")
                  .isEqualTo(1);
            });
  }

  @Test
  void aMemberCountsItselfAndPlansOnlyAfterTheDelay() {
    assertThat(AuditMembers.liveWithSelf(List.of("c", "a"), "b")).containsExactly("a", "b", "c");
    assertThat(AuditMembers.liveWithSelf(List.of("b", "a"), "b")).containsExactly("a", "b");
    assertThat(AuditMembers.mayPlan(T0, Duration.ofSeconds(10), T0.plusSeconds(9))).isFalse();
    assertThat(AuditMembers.mayPlan(T0, Duration.ofSeconds(10), T0.plusSeconds(10))).isTrue();
    assertThat(AuditMembers.mayPlan(T0, Duration.ZERO, T0)).isTrue();
  }

  @Test
  void aMemberNotYetLiveStillGetsUnits() {
    WorkUnit a = WorkUnit.ofNamespace(GroupVersionKind.of("", "v1", "Pod"), "a", 5);
    ShardPlan plan = PLANNER.plan(List.of(a), List.of("gone"));
    Set<String> owners =
        UnitRetries.none().next(PLANNER, plan, RunLedger.empty(RUN), List.of(), "new", T0).stream()
            .map(n -> n.unit().id())
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(owners).containsExactly(a.id());
  }

  @Test
  void refusesAStaleThresholdBelowOne() {
    assertThatThrownBy(() -> UnitRetries.none().failed("u", T0, BACKOFF, 0, new Random(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("staleAfterAttempts");
  }
}
