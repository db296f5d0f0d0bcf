package dev.tally.report.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import dev.tally.report.audit.AuditMembers.LeaseState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a member counts the group: Lease states, itself, and when it may plan. */
class AuditMembersProperties {
  private static final Instant RENEWED = Instant.parse("2030-01-01T00:00:00Z");

  @Test
  void aLeaseIsLiveWithinItsDurationThenExpiredThenAnOrphanAndNeverGoesBack() {
    qt().withFixedSeed(0x1ea5eL)
        .withExamples(2000)
        .forAll(
            integers().between(0, 600),
            integers().between(0, 1800),
            integers().between(-100, 4000),
            integers().between(0, 100))
        .checkAssert(
            (duration, grace, at, later) -> {
              Duration d = Duration.ofSeconds(duration);
              Duration g = Duration.ofSeconds(grace);
              Instant now = RENEWED.plusSeconds(at);
              LeaseState state = AuditMembers.leaseState(RENEWED, d, g, now);
              Instant expires = RENEWED.plus(d);
              assertThat(state == LeaseState.LIVE).isEqualTo(expires.isAfter(now));
              assertThat(state == LeaseState.ORPHAN).isEqualTo(expires.plus(g).isBefore(now));
              LeaseState afterwards =
                  AuditMembers.leaseState(RENEWED, d, g, now.plusSeconds(later));
              assertThat(afterwards.ordinal()).isGreaterThanOrEqualTo(state.ordinal());
            });
  }

  @Test
  void aMemberAlwaysCountsItselfAndMayPlanOnlyAfterTheDelay() {
    assertThat(AuditMembers.liveWithSelf(List.of("m-c", "m-a"), "m-b"))
        .containsExactly("m-a", "m-b", "m-c");
    assertThat(AuditMembers.liveWithSelf(List.of("m-a"), "m-a")).containsExactly("m-a");
    Duration delay = Duration.ofSeconds(10);
    assertThat(AuditMembers.mayPlan(RENEWED, delay, RENEWED.plusSeconds(9))).isFalse();
    assertThat(AuditMembers.mayPlan(RENEWED, delay, RENEWED.plusSeconds(10))).isTrue();
  }
}
