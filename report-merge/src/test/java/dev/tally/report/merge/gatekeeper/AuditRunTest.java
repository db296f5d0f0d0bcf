package dev.tally.report.merge.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Timestamp;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AuditRunTest {
  static final String ID = "2026-12-04T10:15:30Z";
  static final Timestamp STARTED = Timestamp.ofSeconds(1_796_379_330L);

  static ExportLine violation(String id, String kind, String name, String namespace) {
    return new ExportLine(
        id,
        ExportLine.VIOLATION,
        "you must provide labels: {\"owner\"}",
        "constraints.gatekeeper.sh",
        "v1beta1",
        "K8sRequiredLabels",
        "must-have-owner",
        "deny",
        List.of(),
        "",
        "v1",
        kind,
        namespace,
        name);
  }

  static List<ExportLine> run(String id, ExportLine... violations) {
    List<ExportLine> lines = new ArrayList<>();
    lines.add(ExportLine.start(id));
    lines.addAll(List.of(violations));
    lines.add(ExportLine.finish(id));
    return lines;
  }

  @Test
  void aRunFramedByItsStartAndFinishIsFinishedWithEveryViolationInOrder() {
    ExportLine a = violation(ID, "Pod", "a", "team-a");
    ExportLine b = violation(ID, "Namespace", "team-b", "");
    AuditRun run = AuditRun.of(run(ID, a, b), true);
    assertThat(run).isEqualTo(new AuditRun.Finished(ID, STARTED, 0, List.of(a, b)));
  }

  @Test
  void aRunWithoutViolationsIsFinishedAndEmpty() {
    assertThat(AuditRun.of(run(ID), true))
        .isEqualTo(new AuditRun.Finished(ID, STARTED, 0, List.of()));
  }

  @Test
  void aFileWhoseLastLineIsStillBeingWrittenHoldsNoFinishedRun() {
    // the reader passes the complete lines only; the file did not end with a newline
    AuditRun run = AuditRun.of(run(ID, violation(ID, "Pod", "a", "team-a")), false);
    assertThat(run).isInstanceOf(AuditRun.Unfinished.class);
    assertThat(((AuditRun.Unfinished) run).reason()).contains("still being written");
  }

  @Test
  void aRunWithoutItsFinishLineIsUnfinished() {
    List<ExportLine> lines = run(ID, violation(ID, "Pod", "a", "team-a"));
    lines.remove(lines.size() - 1);
    assertThat(AuditRun.of(lines, true))
        .isEqualTo(new AuditRun.Unfinished(ID, "no finish line yet"));
    assertThat(AuditRun.of(List.of(), true)).isEqualTo(new AuditRun.Unfinished("", "no line yet"));
  }

  @Test
  void aFinishLineWithoutItsStartIsUnfinished() {
    List<ExportLine> lines = run(ID, violation(ID, "Pod", "a", "team-a"));
    lines.remove(0);
    assertThat(AuditRun.of(lines, true)).isInstanceOf(AuditRun.Unfinished.class);
  }

  @Test
  void aSecondRunAppendedToTheSameFileIsTheRunOnceItFinishes() {
    ExportLine first = violation(ID, "Pod", "a", "team-a");
    ExportLine second = violation(ID, "Pod", "b", "team-a");
    List<ExportLine> lines = run(ID, first);
    lines.add(ExportLine.start(ID));
    lines.add(second);
    assertThat(AuditRun.of(lines, true))
        .as("the second run has not finished: the first is not applied again in its place")
        .isInstanceOf(AuditRun.Unfinished.class);
    lines.add(ExportLine.finish(ID));
    assertThat(AuditRun.of(lines, true))
        .isEqualTo(new AuditRun.Finished(ID, STARTED, 1, List.of(second)));
  }

  @Test
  void aLineOfAnotherRunInsideTheFrameMakesItUnfinishedNamingTheLine() {
    List<ExportLine> lines =
        run(ID, violation(ID, "Pod", "a", "team-a"), violation("other", "Pod", "b", "team-a"));
    assertThat(AuditRun.of(lines, true))
        .isEqualTo(new AuditRun.Unfinished(ID, "line 3 belongs to run 'other'"));
  }

  @Test
  void aViolationThatDoesNotNameItsResourceMakesTheRunInvalidNamingLineAndField() {
    ExportLine noKind = violation(ID, "", "a", "team-a");
    assertThat(AuditRun.of(run(ID, violation(ID, "Pod", "b", "team-a"), noKind), true))
        .isEqualTo(new AuditRun.Invalid(ID, 3, "resourceKind", "a violation must name it"));
    ExportLine noConstraint =
        GatekeeperMappingTest.violation(
            "K8sX", "", "deny", List.of(), "", "v1", "Pod", "team-a", "a", "m");
    assertThat(AuditRun.of(run(ID, noConstraint), true))
        .isEqualTo(new AuditRun.Invalid(ID, 2, "name", "a violation must name it"));
  }

  @Test
  void anIdThatIsNotATimeMakesTheRunInvalid() {
    AuditRun run = AuditRun.of(run("yesterday"), true);
    assertThat(run)
        .isEqualTo(
            new AuditRun.Invalid("yesterday", 1, "id", "'yesterday' is not an RFC 3339 time"));
  }

  @Test
  void linesOfAnEventTypeNotKnownAreSkipped() {
    ExportLine future =
        new ExportLine(
            ID, "constraint_summary", "m", "", "", "", "", "", List.of(), "", "", "", "", "");
    ExportLine a = violation(ID, "Pod", "a", "team-a");
    assertThat(AuditRun.of(run(ID, future, a), true))
        .isEqualTo(new AuditRun.Finished(ID, STARTED, 0, List.of(a)));
  }

  @Test
  void aLineThatCannotBeReadInsideAFinishedRunMakesItInvalidAndOneOfAnEarlierRunIsNoMatter() {
    String start = "{\"id\":\"" + ID + "\",\"message\":\"audit is started\"}";
    String finish = "{\"id\":\"" + ID + "\",\"message\":\"audit is completed\"}";
    assertThat(AuditRun.read(List.of(start, "{oops", finish), true))
        .isEqualTo(new AuditRun.Invalid(ID, 2, "", "expected a field name (at character 2)"));
    assertThat(AuditRun.read(List.of("{oops", start, finish), true))
        .isEqualTo(new AuditRun.Finished(ID, STARTED, 0, List.of()));
    assertThat(AuditRun.read(List.of("{oops", finish), true))
        .as("the line that cannot be read may have been the start")
        .isEqualTo(new AuditRun.Invalid(ID, 1, "", "expected a field name (at character 2)"));
    assertThat(AuditRun.read(List.of(start, "{oops"), true))
        .as("a complete last line that cannot be read")
        .isEqualTo(new AuditRun.Invalid("", 2, "", "expected a field name (at character 2)"));
    assertThat(AuditRun.read(List.of(start, "{oops", finish), false))
        .as("not finished: it waits")
        .isInstanceOf(AuditRun.Unfinished.class);
  }
}
