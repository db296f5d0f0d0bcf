package dev.tally.report.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The ledger is a state-based CRDT: its merge is a join. */
class RunLedgerProperties {
  private static final long SEED = 0x1ed6e5L;
  private static final RunId RUN = new RunId(42, "00112233445566ff");

  @Test
  void mergeIsCommutative() {
    qt().withFixedSeed(SEED)
        .withExamples(2000)
        .forAll(AuditGenerators.ledgers(RUN), AuditGenerators.ledgers(RUN))
        .checkAssert((a, b) -> assertThat(a.merge(b)).isEqualTo(b.merge(a)));
  }

  @Test
  void mergeIsAssociative() {
    qt().withFixedSeed(SEED)
        .withExamples(2000)
        .forAll(
            AuditGenerators.ledgers(RUN),
            AuditGenerators.ledgers(RUN),
            AuditGenerators.ledgers(RUN))
        .checkAssert((a, b, c) -> assertThat(a.merge(b).merge(c)).isEqualTo(a.merge(b.merge(c))));
  }

  @Test
  void mergeIsIdempotent() {
    qt().withFixedSeed(SEED)
        .withExamples(2000)
        .forAll(AuditGenerators.ledgers(RUN), AuditGenerators.ledgers(RUN))
        .checkAssert(
            (a, b) -> {
              assertThat(a.merge(a)).isEqualTo(a);
              assertThat(a.merge(b).merge(b)).isEqualTo(a.merge(b));
            });
  }

  @Test
  void statusOrderIsTotalAndDoneIsNeverUndone() {
    qt().withFixedSeed(SEED)
        .withExamples(2000)
        .forAll(AuditGenerators.statuses(), AuditGenerators.statuses())
        .checkAssert(
            (a, b) -> {
              assertThat(Integer.signum(a.compareTo(b))).isEqualTo(-Integer.signum(b.compareTo(a)));
              if (a.compareTo(b) == 0) {
                assertThat(a).isEqualTo(b);
              }
              UnitStatus joined = UnitStatus.join(a, b);
              if (a.isDone() || b.isDone()) {
                assertThat(joined.isDone()).isTrue();
              }
              assertThat(joined.attempts())
                  .isGreaterThanOrEqualTo(
                      a.isDone() || b.isDone() ? 1 : Math.max(a.attempts(), b.attempts()));
            });
  }

  @Test
  void aStatusSurvivesItsEncoding() {
    qt().withFixedSeed(SEED)
        .withExamples(1000)
        .forAll(AuditGenerators.statuses())
        .checkAssert(s -> assertThat(UnitStatus.decode(s.encode())).isEqualTo(s));
  }

  @Test
  void aRunIsCompleteExactlyWhenEveryUnitIsDone() {
    ShardPlan plan =
        ShardPlanner.defaults()
            .plan(
                List.of(
                    WorkUnit.ofKind(GroupVersionKind.of("", "v1", "Pod"), 10),
                    WorkUnit.ofKind(GroupVersionKind.of("", "v1", "Namespace"), 2)),
                List.of("a", "b"));
    RunLedger ledger = RunLedger.empty(RunId.of(1, plan));
    assertThat(ledger.isComplete(plan)).isFalse();
    ledger = ledger.with("Pod.v1.core", UnitStatus.failed("a", 1, "HTTP 500"));
    ledger = ledger.with("Namespace.v1.core", UnitStatus.done("b", 1, 2));
    assertThat(ledger.isComplete(plan)).isFalse();
    assertThat(ledger.progress(plan))
        .containsEntry(UnitState.FAILED, 1)
        .containsEntry(UnitState.DONE, 1);
    ledger = ledger.with("Pod.v1.core", UnitStatus.pending("a", 2));
    assertThat(ledger.status("Pod.v1.core")).contains(UnitStatus.pending("a", 2));
    ledger = ledger.with("Pod.v1.core", UnitStatus.done("a", 2, 10));
    // a stale failure from a slower member does not undo the completion
    ledger = ledger.with("Pod.v1.core", UnitStatus.failed("b", 3, "410 Gone"));
    assertThat(ledger.isComplete(plan)).isTrue();
  }

  @Test
  void ledgersOfDifferentRunsDoNotMerge() {
    RunLedger a = RunLedger.empty(RUN);
    RunLedger b = RunLedger.empty(new RunId(43, "00112233445566ff"));
    assertThatThrownBy(() -> a.merge(b))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("r42-00112233445566ff");
  }
}
