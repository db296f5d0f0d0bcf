package dev.tally.report.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import org.junit.jupiter.api.Test;

/** The global audit budget is divided among live members, never multiplied by them. */
class AuditBudgetProperties {
  @Test
  void membersShareTheGlobalRate() {
    qt().withFixedSeed(0xb0c4e7L)
        .withExamples(1000)
        .forAll(integers().between(1, 1000), integers().between(1, 100), integers().between(1, 64))
        .checkAssert(
            (qps, burst, members) -> {
              AuditBudget global = new AuditBudget(qps, burst);
              AuditBudget share = global.share(members);
              assertThat(share.qps() * members)
                  .isCloseTo(qps, org.assertj.core.data.Offset.offset(1e-9 * qps));
              assertThat(share.burst()).isGreaterThanOrEqualTo(1);
              if (members <= burst) {
                assertThat((long) share.burst() * members).isLessThanOrEqualTo(burst);
              }
            });
  }

  @Test
  void maxRequestsInAWindowIsBurstPlusRate() {
    AuditBudget budget = new AuditBudget(10, 5);
    org.assertj.core.api.Assertions.assertThat(budget.maxRequestsIn(0)).isEqualTo(5);
    org.assertj.core.api.Assertions.assertThat(budget.maxRequestsIn(2_500_000_000L)).isEqualTo(30);
  }
}
