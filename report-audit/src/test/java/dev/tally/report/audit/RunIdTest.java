package dev.tally.report.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.InvalidReportException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunIdTest {
  @Test
  void epochIsTheIntervalTheInstantFallsIn() {
    Duration hour = Duration.ofHours(1);
    assertThat(RunId.epochOf(Instant.parse("1970-01-01T05:59:59.999Z"), hour)).isEqualTo(5);
    assertThat(RunId.epochOf(Instant.parse("1970-01-01T06:00:00Z"), hour)).isEqualTo(6);
  }

  @Test
  void nameIsADnsLabelThatParsesBack() {
    ShardPlan plan =
        ShardPlanner.defaults()
            .plan(List.of(WorkUnit.ofKind(GroupVersionKind.of("", "v1", "Pod"), 3)), List.of("a"));
    RunId id = RunId.of(480_000, plan);
    assertThat(id.name()).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?").hasSizeLessThanOrEqualTo(63);
    assertThat(RunId.parse(id.name())).isEqualTo(id);
  }

  @Test
  void samePlanSameDigestAndADifferentOwnerChangesIt() {
    var units = List.of(WorkUnit.ofKind(GroupVersionKind.of("", "v1", "Pod"), 3));
    ShardPlanner planner = ShardPlanner.defaults();
    assertThat(planner.plan(units, List.of("a")).digest())
        .isEqualTo(planner.plan(units, List.of("a")).digest())
        .isNotEqualTo(planner.plan(units, List.of("b")).digest())
        .isNotEqualTo(planner.plan(List.of(units.get(0).withWeight(4)), List.of("a")).digest());
  }

  @Test
  void refusesMalformedNames() {
    assertThatThrownBy(() -> RunId.parse("r12-XYZ"))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageStartingWith("runId:");
    assertThatThrownBy(() -> new RunId(-1, "0000000000000000"))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageStartingWith("epoch:");
  }
}
