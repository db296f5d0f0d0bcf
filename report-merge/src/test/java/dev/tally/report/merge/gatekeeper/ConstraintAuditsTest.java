package dev.tally.report.merge.gatekeeper;

import static dev.tally.report.merge.gatekeeper.GatekeeperMappingTest.podViolation;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Timestamp;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConstraintAuditsTest {
  private static final String OWNER = "K8sRequiredLabels/owner";
  private static final String TEAM = "K8sRequiredLabels/team";

  private static AuditRun.Finished run(String id) {
    return new AuditRun.Finished(id, Timestamp.ofSeconds(1_800_000_000L), 0, List.of());
  }

  private static ConstraintAudits.Stamp stamp(String uid, String id) {
    return new ConstraintAudits.Stamp(uid, id);
  }

  @Test
  void aConstraintIsConfirmedForARunOnlyOnceItsStatusWasSeenNamingAnEarlierOne() {
    ConstraintAudits audits = new ConstraintAudits();
    AuditRun.Finished r1 = run("2026-01-01T00:01:00Z");
    AuditRun.Finished r2 = run("2026-01-01T00:02:00Z");
    // the first status seen names r1: r1 may not have evaluated it (made during r1)
    audits.observe(Map.of(OWNER, stamp("u1", r1.id()), TEAM, stamp("u2", "")), Set.of());
    assertThat(audits.confirmed(r1, List.of())).isEmpty();
    assertThat(audits.settled(r1)).as("team's status may still name r1").isFalse();
    audits.observe(Map.of(OWNER, stamp("u1", r2.id()), TEAM, stamp("u2", r2.id())), Set.of());
    assertThat(audits.confirmed(r2, List.of()))
        .as("owner was seen naming r1 before; team names r2 first")
        .containsExactly(OWNER);
    assertThat(audits.settled(r2)).isTrue();
    assertThat(audits.confirmed(r1, List.of())).as("no status names r1 now").isEmpty();
  }

  @Test
  void aConstraintMadeAgainUnderItsNameStartsOver() {
    ConstraintAudits audits = new ConstraintAudits();
    audits.observe(Map.of(OWNER, stamp("u1", "2026-01-01T00:01:00Z")), Set.of());
    AuditRun.Finished r2 = run("2026-01-01T00:02:00Z");
    audits.observe(Map.of(OWNER, stamp("u9", r2.id())), Set.of());
    assertThat(audits.confirmed(r2, List.of())).isEmpty();
    AuditRun.Finished r3 = run("2026-01-01T00:03:00Z");
    audits.observe(Map.of(OWNER, stamp("u9", r3.id())), Set.of());
    assertThat(audits.confirmed(r3, List.of())).containsExactly(OWNER);
  }

  @Test
  void aConstraintThatNoLongerExistsIsConfirmedForEveryRunSoItsResultsHeldGo() {
    var held =
        GatekeeperMappingTest.afterFirstRun(
                GatekeeperMappingTest.finished(
                    podViolation("owner", "a", "m1"), podViolation("team", "a", "m2")))
            .aggregates();
    ConstraintAudits audits = new ConstraintAudits();
    AuditRun.Finished r = run("2026-01-01T00:02:00Z");
    audits.observe(Map.of(TEAM, stamp("u2", r.id())), Set.of());
    assertThat(audits.confirmed(r, held)).containsExactly(OWNER);
  }

  @Test
  void aConstraintOfAKindThatCouldNotBeListedIsNeitherConfirmedNorGone() {
    var held =
        GatekeeperMappingTest.afterFirstRun(
                GatekeeperMappingTest.finished(podViolation("owner", "a", "m1")))
            .aggregates();
    ConstraintAudits audits = new ConstraintAudits();
    AuditRun.Finished r1 = run("2026-01-01T00:01:00Z");
    AuditRun.Finished r2 = run("2026-01-01T00:02:00Z");
    audits.observe(Map.of(OWNER, stamp("u1", r1.id())), Set.of());
    audits.observe(Map.of(), Set.of("K8sRequiredLabels"));
    assertThat(audits.confirmed(r2, held)).isEmpty();
    assertThat(audits.settled(r2)).isFalse();
    // listed again: what was seen before it still counts
    audits.observe(Map.of(OWNER, stamp("u1", r2.id())), Set.of());
    assertThat(audits.confirmed(r2, held)).containsExactly(OWNER);
  }
}
