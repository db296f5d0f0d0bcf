package dev.tally.report.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.EncodedSize;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

class CostModelTest {
  private static final int SIZE = 400;
  private final ClusterScript script = ClusterScript.generate(SIZE, CostModel.SEED);

  private static long evaluations(ClusterScript script) {
    return script.windows().stream()
        .flatMap(w -> w.actions().stream())
        .filter(a -> a instanceof ClusterAction.Evaluation)
        .count();
  }

  @Test
  void theScriptHasTheChurnItDescribes() {
    assertThat(script.creates()).isEqualTo(SIZE / 20);
    assertThat(script.updates()).isEqualTo(SIZE / 10);
    assertThat(script.deletes()).isEqualTo(SIZE / 20);
    assertThat(script.policyChanges()).isEqualTo(1);
    assertThat(script.windows()).hasSize(ClusterScript.WINDOWS);
    // the hourly scan alone evaluates about every subject once
    assertThat(evaluations(script)).isGreaterThan(SIZE);
  }

  @Test
  void bothLifecyclesShareTheAggregatesAndDifferInIntermediates() {
    for (String layout : CostModel.LAYOUTS) {
      List<LayoutCost> costs = CostModel.replay(script, layout);
      LayoutCost ephemeral = costs.get(0);
      LayoutCost inPlace = costs.get(1);
      assertThat(ephemeral.lifecycle()).isEqualTo(Lifecycle.EPHEMERAL);
      assertThat(ephemeral.aggregateWrites()).isEqualTo(inPlace.aggregateWrites());
      assertThat(ephemeral.aggregateObjects()).isEqualTo(inPlace.aggregateObjects());

      long evaluations = evaluations(script);
      assertThat(ephemeral.intermediateWrites().creates()).isEqualTo(evaluations);
      assertThat(ephemeral.intermediateWrites().deletes()).isEqualTo(evaluations);
      assertThat(ephemeral.intermediateObjects()).isZero();
      assertThat(inPlace.intermediateWrites().creates() + inPlace.intermediateWrites().updates())
          .isEqualTo(evaluations);
      assertThat(inPlace.intermediateWrites().bytes())
          .isEqualTo(ephemeral.intermediateWrites().bytes());
      // one partial per producer and live subject
      assertThat(inPlace.intermediateObjects()).isBetween(2L * SIZE - 20, 2L * SIZE + 20);
    }
  }

  @Test
  void layoutsTradeObjectCountForObjectSize() {
    LayoutCost perSubject = CostModel.replay(script, "subject").get(0);
    LayoutCost perNamespace = CostModel.replay(script, "namespace").get(0);
    LayoutCost perPolicy = CostModel.replay(script, "policy").get(0);
    assertThat(perSubject.aggregateObjects()).isEqualTo(SIZE + script.creates() - script.deletes());
    assertThat(perNamespace.aggregateObjects()).isLessThan(perPolicy.aggregateObjects());
    assertThat(perPolicy.aggregateObjects()).isLessThan(perSubject.aggregateObjects());
    assertThat(perNamespace.largestObject()).isGreaterThan(perSubject.largestObject());
    assertThat(perNamespace.aggregateWrites().bytes())
        .isGreaterThan(perSubject.aggregateWrites().bytes());
    assertThat(perSubject.suppressedNoOps()).isPositive();
  }

  @Test
  void replayIsDeterministic() {
    var again = ClusterScript.generate(SIZE, CostModel.SEED);
    assertThat(CostModel.replay(again, "policy")).isEqualTo(CostModel.replay(script, "policy"));
  }

  @Test
  void cachedSizesEqualTheEncodedSize() {
    var sizes = new EncodedSizes();
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
    script.initial().forEach(aggregator::apply);
    for (AggregateReport r : aggregator.aggregates()) {
      assertThat(sizes.of(r)).isEqualTo(EncodedSize.of(r));
      assertThat(sizes.of(r)).isEqualTo(EncodedSize.of(r));
    }
    for (PartialReport p : script.initial().subList(0, 50)) {
      assertThat(sizes.of(p)).isEqualTo(PartialSize.of(p)).isGreaterThan(3_000);
    }
  }

  @Test
  void theChartIsWellFormedSvgWithALinePerLayoutAndLifecycleInEachPanel() throws Exception {
    List<LayoutCost> costs = new ArrayList<>();
    for (int size : List.of(200, 400)) {
      var s = ClusterScript.generate(size, CostModel.SEED);
      for (String layout : CostModel.LAYOUTS) {
        costs.addAll(CostModel.replay(s, layout));
      }
    }
    String svg = CostChart.svg(costs);
    var doc =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
    assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(12);
    assertThat(doc.getElementsByTagName("circle").getLength()).isEqualTo(24);
  }
}
