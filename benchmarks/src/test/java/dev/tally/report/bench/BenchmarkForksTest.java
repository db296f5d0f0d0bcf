package dev.tally.report.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;

/** Every JMH benchmark of the module forks with the pre-touched heap of {@link BenchHeap}. */
class BenchmarkForksTest {

  private static List<BenchmarkListEntry> benchmarks() throws Exception {
    try (InputStream in = BenchmarkForksTest.class.getResourceAsStream("/META-INF/BenchmarkList")) {
      assertThat(in).as("JMH's generated list of benchmarks").isNotNull();
      return BenchmarkList.readBenchmarkList(in);
    }
  }

  @Test
  void everyForkRunsWithAFixedPreTouchedHeap() throws Exception {
    List<BenchmarkListEntry> all = benchmarks();
    assertThat(all.stream().map(BenchmarkListEntry::getUserClassQName).distinct())
        .contains(
            FullAggregationBenchmark.class.getName(),
            EndToEndBenchmark.class.getName(),
            UpsertBenchmark.class.getName());
    for (BenchmarkListEntry b : all) {
      assertThat(b.getJvmArgsAppend().orElse(List.of()))
          .as(b.getUsername())
          .containsSubsequence(BenchHeap.MIN, BenchHeap.MAX, BenchHeap.PRE_TOUCH);
    }
  }

  @Test
  void fullAggregationScalesTallyAndTheBaselineOverTheSameSizesAndInputs() throws Exception {
    Map<String, Map<String, List<String>>> params =
        benchmarks().stream()
            .filter(b -> b.getUserClassQName().equals(FullAggregationBenchmark.class.getName()))
            .collect(
                Collectors.toMap(
                    BenchmarkListEntry::getUsername,
                    b ->
                        b.getParams().orElse(Map.of()).entrySet().stream()
                            .collect(
                                Collectors.toMap(
                                    Map.Entry::getKey, e -> Arrays.asList(e.getValue())))));
    assertThat(params.keySet())
        .containsExactlyInAnyOrder(
            FullAggregationBenchmark.class.getName() + ".tally",
            FullAggregationBenchmark.class.getName() + ".baseline");
    for (var p : params.values()) {
      assertThat(p.get("results")).containsExactly("10000", "100000", "1000000");
      assertThat(p.get("inputs")).containsExactly("fresh", "reused", "shared");
    }
  }
}
