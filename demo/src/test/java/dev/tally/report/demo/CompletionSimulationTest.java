package dev.tally.report.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CompletionSimulationTest {
  private final CompletionSimulation simulation = new CompletionSimulation(7, 20_000, 0.1, 2.0);

  @Test
  void theSameSeedGivesTheSameTable() {
    var a = simulation.table(List.of(3, 10), List.of(0.01, 0.1));
    var b = new CompletionSimulation(7, 20_000, 0.1, 2.0).table(List.of(3, 10), List.of(0.01, 0.1));
    assertThat(a).isEqualTo(b);
    assertThat(
            new CompletionSimulation(8, 20_000, 0.1, 2.0).table(List.of(3, 10), List.of(0.01, 0.1)))
        .isNotEqualTo(a);
  }

  @Test
  void staticShardingMatchesItsClosedFormWithinFourSigma() {
    for (CompletionRow row : simulation.table(List.of(1, 5, 20), List.of(0.01, 0.05, 0.1))) {
      double p = row.staticExact();
      double sigma = Math.sqrt(p * (1 - p) / row.trials());
      assertThat(row.staticSimulated())
          .isCloseTo(p, org.assertj.core.data.Offset.offset(4 * sigma + 1e-9));
    }
  }

  @Test
  void reassignmentNeverDoesWorseAndWithOneMemberIsTheSame() {
    for (CompletionRow row : simulation.table(List.of(1, 3, 10, 20), List.of(0.01, 0.1, 0.3))) {
      assertThat(row.tallySimulated()).isGreaterThanOrEqualTo(row.staticSimulated());
      if (row.members() == 1) {
        assertThat(row.tallySimulated()).isEqualTo(row.staticSimulated());
      }
    }
  }

  @Test
  void withReassignmentReliabilityGrowsWithMembersInsteadOfDropping() {
    var rows = simulation.table(List.of(3, 20), List.of(0.05));
    assertThat(rows.get(1).staticSimulated()).isLessThan(rows.get(0).staticSimulated());
    assertThat(rows.get(1).tallySimulated()).isGreaterThanOrEqualTo(rows.get(0).tallySimulated());
    assertThat(rows.get(1).tallySimulated()).isGreaterThan(0.999);
  }

  @Test
  void aSurvivorFinishesTheDeadMembersShareWithinTheDeadline() {
    // two members; one dies half-way; the survivor has 0.5 + 0.1 lease, then 0.5 more: done at 1.5
    assertThat(simulation.reassignmentCompletes(new double[] {0.5, Double.POSITIVE_INFINITY}))
        .isTrue();
    // with a deadline of 1.2 it cannot make it
    assertThat(
            new CompletionSimulation(1, 1, 0.1, 1.2)
                .reassignmentCompletes(new double[] {0.5, Double.POSITIVE_INFINITY}))
        .isFalse();
    // everyone dies: nothing completes
    assertThat(simulation.reassignmentCompletes(new double[] {0.2, 0.9})).isFalse();
  }

  @Test
  void markdownHasOneLinePerRow() {
    String md = CompletionSimulation.markdown(simulation.table(List.of(3), List.of(0.01, 0.1)));
    assertThat(md.lines()).hasSize(4);
    assertThat(md).startsWith("| members |").contains("| 3 | 1.0% | 97.03% |");
  }

  @Test
  void theSimulationStaysPure() throws IOException {
    // report-merge's PurityTest checked it while it lived there; the same rule, kept for it here
    Pattern forbidden =
        Pattern.compile(
            "io\\.fabric8|java\\.io\\.|java\\.nio\\.|java\\.net\\.|System\\."
                + "|Instant\\.now|LocalDateTime\\.now|Clock\\.|new Thread|Executors\\."
                + "|Math\\.random|new Random\\(|ThreadLocalRandom");
    Path dir = Path.of("src/main/java/dev/tally/report/demo");
    for (String file : List.of("CompletionSimulation.java", "CompletionRow.java")) {
      assertThat(Files.readAllLines(dir.resolve(file)))
          .as(file)
          .isNotEmpty()
          .noneMatch(line -> forbidden.matcher(line).find());
    }
  }
}
