package dev.tally.report.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.Summary;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Java half of run-anchors.sh measures what it says, in the format the script reads. */
class SideBySideTest {

  @Test
  void measuresBothImplementationsOnTheWholeWorkloadAndPrintsEverySample() {
    var options =
        SideBySide.Options.parse("--jit-warmup", "0", "--warmup", "1", "--reps", "2", "10000");
    List<String> lines = new ArrayList<>();
    var measured = SideBySide.run(options, lines::add);

    // the counts of the workload itself, which the Go anchor's are compared with
    List<Summary> perPartial = new ArrayList<>();
    ReferenceWorkload.reference(10_000)
        .partials()
        .forEach(p -> perPartial.add(Summary.of(p.results())));
    Summary expected = SideBySide.sum(perPartial);
    assertThat(expected.total()).isEqualTo(10_000);
    for (SideBySide.Impl impl : SideBySide.Impl.values()) {
      assertThat(measured.get(impl).samples()).hasSize(2);
      assertThat(measured.get(impl).summary()).isEqualTo(expected);
      assertThat(measured.get(impl).samples())
          .allSatisfy(s -> assertThat(s.cpuNanos()).isPositive());
    }
    assertThat(lines)
        .hasSize(4)
        .allMatch(
            l ->
                l.matches(
                    "sample impl=(tally|baseline) results=10000 rep=[12] cpu_ns=\\d+ wall_ns=\\d+"));
    String summary =
        SideBySide.summaryLine(options, SideBySide.Impl.TALLY, measured.get(SideBySide.Impl.TALLY));
    assertThat(summary)
        .startsWith("side-by-side impl=tally results=10000 inputs=fresh reps=2 clock=thread-cpu ")
        .contains(
            " pass=" + expected.pass() + " fail=" + expected.fail() + " warn=" + expected.warn())
        .matches(".* ns_per_result_min=[0-9.]+ ns_per_result_median=[0-9.]+ .*");
  }

  @Test
  void optionsDefaultToFreshInputsAt100kAndRefuseNonsense() {
    var defaults = SideBySide.Options.parse();
    assertThat(defaults.inputs()).isEqualTo(Inputs.FRESH);
    assertThat(defaults.results()).isEqualTo(100_000);
    assertThat(SideBySide.Options.parse("--inputs", "shared").inputs()).isEqualTo(Inputs.SHARED);
    assertThatThrownBy(() -> SideBySide.Options.parse("--reps", "0"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SideBySide.Options.parse("--reps"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(defaults.impls()).containsExactly(SideBySide.Impl.TALLY, SideBySide.Impl.BASELINE);
    assertThatThrownBy(() -> SideBySide.Options.parse("--impl", "go"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--impl");
  }

  /** With one implementation, the JVM measures that one alone. */
  @Test
  void oneImplementationRunsAlone() {
    var options =
        SideBySide.Options.parse(
            "--impl", "baseline", "--jit-warmup", "1", "--warmup", "0", "--reps", "2", "10000");
    List<String> lines = new ArrayList<>();
    var measured = SideBySide.run(options, lines::add);
    assertThat(measured).containsOnlyKeys(SideBySide.Impl.BASELINE);
    assertThat(lines).hasSize(2).allMatch(l -> l.startsWith("sample impl=baseline "));
  }
}
