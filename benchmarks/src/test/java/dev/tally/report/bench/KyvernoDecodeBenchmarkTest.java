package dev.tally.report.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.ResultStatus;
import dev.tally.report.merge.kyverno.KyvernoMapping;
import org.junit.jupiter.api.Test;

class KyvernoDecodeBenchmarkTest {

  private static KyvernoDecodeBenchmark benchmark() {
    KyvernoDecodeBenchmark b = new KyvernoDecodeBenchmark();
    b.reports = 20;
    b.resultsPerReport = 10;
    b.encodeInput();
    return b;
  }

  @Test
  void bothWaysReadTheSameReports() {
    KyvernoDecodeBenchmark b = benchmark();
    assertThat(b.typed()).hasSize(20).isEqualTo(b.generic());
  }

  @Test
  void eachReportIsABackgroundScanOfItsPodThatKyvernosMappingTakesAsReady() {
    var read = benchmark().typed();
    assertThat(read.get(3).results())
        .hasSize(10)
        .filteredOn(r -> r.status() == ResultStatus.FAIL)
        .hasSize(4);
    assertThat(read)
        .allSatisfy(
            r ->
                assertThat(KyvernoMapping.map(r)).isInstanceOf(KyvernoMapping.Outcome.Ready.class));
  }
}
