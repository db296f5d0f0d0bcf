package dev.tally.report.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.gatekeeper.AuditRun;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files of Gatekeeper's disk export driver, as v3.23's audit writes them (the shape of its
 * {@code ExportMsg}: every field left out when empty, the start and finish lines with only {@code
 * id} and {@code message}). The lines are this test's own.
 */
class GatekeeperExportTest {
  static final String ID = "2026-12-04T10:15:30Z";
  static final String START = "{\"id\":\"" + ID + "\",\"message\":\"audit is started\"}\n";
  static final String FINISH = "{\"id\":\"" + ID + "\",\"message\":\"audit is completed\"}\n";
  static final String POD =
      "{\"id\":\""
          + ID
          + "\",\"details\":{\"missing_labels\":[\"owner\"]},\"eventType\":\"violation_audited\","
          + "\"group\":\"constraints.gatekeeper.sh\",\"version\":\"v1beta1\","
          + "\"kind\":\"K8sRequiredLabels\",\"name\":\"must-have-owner\","
          + "\"message\":\"you must provide labels: {\\\"owner\\\"}\",\"enforcementAction\":\"deny\","
          + "\"constraintAnnotations\":{\"team\":\"platform\"},"
          + "\"resourceAPIVersion\":\"v1\",\"resourceKind\":\"Pod\","
          + "\"resourceNamespace\":\"team-a\",\"resourceName\":\"web-0\","
          + "\"resourceLabels\":{\"app\":\"web\"}}\n";
  static final String NAMESPACE =
      "{\"id\":\""
          + ID
          + "\",\"eventType\":\"violation_audited\",\"group\":\"constraints.gatekeeper.sh\","
          + "\"version\":\"v1beta1\",\"kind\":\"K8sRequiredLabels\",\"name\":\"ns-owner\","
          + "\"message\":\"no owner\",\"enforcementAction\":\"scoped\","
          + "\"enforcementActions\":[\"warn\"],\"resourceAPIVersion\":\"v1\","
          + "\"resourceKind\":\"Namespace\",\"resourceName\":\"team-b\"}\n";
  static final String RUN = START + POD + NAMESPACE + FINISH;

  @TempDir Path dir;

  Path write(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
  }

  @Test
  void aFinishedRunIsReadWithEveryViolationAndTheFieldsItDoesNotUseSkipped() throws IOException {
    AuditRun run = GatekeeperExport.read(write("2026-12-04T10_15_30Z.log", RUN));
    assertThat(run).isInstanceOf(AuditRun.Finished.class);
    AuditRun.Finished finished = (AuditRun.Finished) run;
    assertThat(finished.id()).isEqualTo(ID);
    assertThat(finished.started()).isEqualTo(Timestamp.ofSeconds(1_796_379_330L));
    assertThat(finished.ordinal()).isZero();
    assertThat(finished.violations())
        .extracting(
            v ->
                String.join(
                    "|",
                    v.id(),
                    v.eventType(),
                    v.message(),
                    v.constraintGroup() + "/" + v.constraintVersion(),
                    v.constraintKind() + "/" + v.constraintName(),
                    v.enforcementAction() + v.enforcementActions(),
                    v.resourceGroup() + "/" + v.resourceApiVersion(),
                    v.resourceKind(),
                    v.resourceNamespace(),
                    v.resourceName()))
        .containsExactly(
            ID
                + "|violation_audited|you must provide labels: {\"owner\"}"
                + "|constraints.gatekeeper.sh/v1beta1|K8sRequiredLabels/must-have-owner|deny[]"
                + "|/v1|Pod|team-a|web-0",
            ID
                + "|violation_audited|no owner|constraints.gatekeeper.sh/v1beta1"
                + "|K8sRequiredLabels/ns-owner|scoped[warn]|/v1|Namespace||team-b");
  }

  @Test
  void aFileCutAnywhereHoldsNoFinishedRun() throws IOException {
    // a run being written, or cut off by a crash: every prefix but the whole file
    byte[] whole = RUN.getBytes(StandardCharsets.UTF_8);
    for (int length = 0; length < whole.length; length++) {
      Path file = dir.resolve("cut.log");
      Files.write(file, Arrays.copyOf(whole, length));
      assertThat(GatekeeperExport.read(file))
          .as("the first %d bytes", length)
          .isInstanceOf(AuditRun.Unfinished.class);
    }
  }

  @Test
  void aLineThatCannotBeReadMakesAFinishedRunInvalidNamingTheLineAndField() throws IOException {
    assertThat(GatekeeperExport.read(write("a.log", START + "{\"id\": oops\n" + POD + FINISH)))
        .isEqualTo(new AuditRun.Invalid(ID, 2, "id", "must be a string (at character 8)"));
    assertThat(
            GatekeeperExport.read(write("b.log", START + POD.replace("\"web-0\"", "7") + FINISH)))
        .isInstanceOf(AuditRun.Invalid.class)
        .extracting(r -> ((AuditRun.Invalid) r).field())
        .isEqualTo("resourceName");
    assertThat(GatekeeperExport.read(write("c.log", START + "{\"id\": oops\n" + POD)))
        .as("a run not finished yet waits, whatever its lines")
        .isInstanceOf(AuditRun.Unfinished.class);
  }

  @Test
  void detailsNestedAsDeepAsTheLineAllowsAreSkipped() throws IOException {
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    String line = POD.replace("{\"missing_labels\":[\"owner\"]}", deep);
    assertThat(GatekeeperExport.read(write("a.log", START + line + FINISH)))
        .isInstanceOf(AuditRun.Finished.class);
  }

  @Test
  void aLineLongerThanTheBoundMakesTheRunInvalid() throws IOException {
    String huge =
        POD.replace(
            "{\"missing_labels\":[\"owner\"]}",
            "\"" + "x".repeat(GatekeeperExport.MAX_LINE_BYTES) + "\"");
    AuditRun run = GatekeeperExport.read(write("a.log", START + huge + FINISH));
    assertThat(run)
        .isEqualTo(
            new AuditRun.Invalid(
                ID, 2, "", "is longer than " + GatekeeperExport.MAX_LINE_BYTES + " bytes"));
  }

  @Test
  void aFileGoneBeforeItIsReadIsARunToSkip() throws IOException {
    assertThat(GatekeeperExport.read(dir.resolve("2026-12-04T10_15_30Z.log")))
        .isEqualTo(new AuditRun.Unfinished(ID, "its file was deleted before it could be opened"));
  }

  @Test
  void onlyTheFilesOfFinishedRunsAreListedOldestFirst() throws IOException {
    GatekeeperExport export = new GatekeeperExport(dir.resolve("audit-channel"));
    assertThat(export.finishedFiles()).as("no directory yet").isEmpty();
    Files.createDirectories(export.channel());
    Files.writeString(export.channel().resolve("2026-12-04T10_20_30Z.log"), RUN);
    Files.writeString(export.channel().resolve("2026-12-04T10_15_30Z.log"), RUN);
    Files.writeString(export.channel().resolve("2026-12-04T10_25_30Z.txt"), START);
    Files.createDirectories(export.channel().resolve("a-directory.log"));
    Path elsewhere = write("elsewhere", RUN);
    Path link = export.channel().resolve("2026-12-04T10_30_30Z.log");
    Files.createSymbolicLink(link, elsewhere);
    assertThat(export.finishedFiles())
        .extracting(p -> p.getFileName().toString())
        .containsExactly("2026-12-04T10_15_30Z.log", "2026-12-04T10_20_30Z.log");
    assertThatThrownBy(() -> GatekeeperExport.read(link))
        .as("the directory is writable by all: a link is not followed")
        .isInstanceOf(IOException.class);
  }
}
