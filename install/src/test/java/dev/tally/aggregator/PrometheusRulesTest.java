package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's alerting rules (files/alerts/) checked and unit-tested by Prometheus's own promtool:
 * {@code promtool check rules}, and {@code promtool test rules} with series under which each alert
 * fires and others under which it must not (install/src/test/resources/alerts/).
 */
class PrometheusRulesTest {
  private static final String TESTS = "tally-aggregator.rules.test.yaml";

  @TempDir Path dir;

  @Test
  void theRulesAreValidAndEachAlertFiresAndStaysQuietAsItsTestsSay() throws Exception {
    Files.copy(PrometheusTools.RULES, dir.resolve(PrometheusTools.RULES.getFileName()));
    try (InputStream tests = getClass().getResourceAsStream("/alerts/" + TESTS)) {
      Files.copy(Objects.requireNonNull(tests, TESTS), dir.resolve(TESTS));
    }

    PrometheusTools.Run check =
        PrometheusTools.promtool(
            dir, "check", "rules", PrometheusTools.RULES.getFileName().toString());
    assertThat(check.exit()).as(check.output()).isZero();
    assertThat(check.output()).contains("SUCCESS: " + alerts().size() + " rules found");

    PrometheusTools.Run test = PrometheusTools.promtool(dir, "test", "rules", TESTS);
    assertThat(test.exit()).as(test.output()).isZero();
    assertThat(test.output()).contains("SUCCESS");
  }

  @Test
  void everyAlertHasATestWhereItFiresAndOneWhereItDoesNot() throws IOException {
    TreeSet<String> fires = new TreeSet<>();
    TreeSet<String> quiet = new TreeSet<>();
    Map<?, ?> tests;
    try (InputStream in = getClass().getResourceAsStream("/alerts/" + TESTS)) {
      tests = Serialization.unmarshal(in, Map.class);
    }
    for (Object group : (List<?>) tests.get("tests")) {
      for (Object t : (List<?>) ((Map<?, ?>) group).get("alert_rule_test")) {
        Map<?, ?> test = (Map<?, ?>) t;
        List<?> expected = (List<?>) test.get("exp_alerts");
        (expected == null || expected.isEmpty() ? quiet : fires)
            .add((String) test.get("alertname"));
      }
    }
    assertThat(fires).as("alerts shown firing").isEqualTo(alerts());
    assertThat(quiet).as("alerts shown not firing").isEqualTo(alerts());
  }

  /** The names of the rules file's alerts. */
  static TreeSet<String> alerts() throws IOException {
    Map<?, ?> rules = Serialization.unmarshal(Files.readString(PrometheusTools.RULES), Map.class);
    TreeSet<String> names = new TreeSet<>();
    for (Object group : (List<?>) rules.get("groups")) {
      for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
        names.add((String) ((Map<?, ?>) rule).get("alert"));
      }
    }
    return names;
  }
}
