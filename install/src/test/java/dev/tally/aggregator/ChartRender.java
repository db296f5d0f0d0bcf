package dev.tally.aggregator;

import dev.tally.testenv.Helm;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * charts/tally-aggregator rendered by real Helm ({@code helm template}), for the tests that read
 * what the chart makes of given values. Helm is built from kube-testenv's module on first use
 * (minutes, cold; nothing when cached per machine).
 */
final class ChartRender {
  static final Path ROOT = ChartFilesTest.deployDir().getParent();
  static final String CHART = "charts/tally-aggregator";
  static final String NAME = "tally-aggregator";
  private static Helm helm;

  private ChartRender() {}

  static synchronized Helm helm() {
    if (helm == null) {
      helm = Helm.build(Path.of(System.getProperty("user.dir"), "target", "helm"));
    }
    return helm;
  }

  /** {@code helm template} of the chart with {@code args}, only {@code template} when not null. */
  static String render(String template, String... args) {
    List<String> command = new ArrayList<>(List.of("template", NAME, CHART));
    if (template != null) {
      command.addAll(List.of("-s", template));
    }
    command.addAll(Arrays.asList(args));
    return helm().ok(ROOT, command.toArray(String[]::new));
  }

  /** What {@code helm template} says when it refuses {@code args}; fails if it does not. */
  static String refusal(String... args) {
    List<String> command = new ArrayList<>(List.of("template", NAME, CHART));
    command.addAll(Arrays.asList(args));
    Helm.Run run = helm().run(ROOT, command.toArray(String[]::new));
    if (run.ok()) {
      throw new AssertionError("helm template accepted " + Arrays.toString(args));
    }
    return run.err();
  }

  static Deployment deployment(String... args) {
    return Serialization.unmarshal(render("templates/deployment.yaml", args), Deployment.class);
  }

  /** Every object the chart renders with {@code args}, CRDs aside. */
  static List<HasMetadata> objects(String... args) {
    List<HasMetadata> objects = new ArrayList<>();
    for (String document : render(null, args).split("(?m)^---$")) {
      if (document.lines().anyMatch(line -> line.startsWith("kind:"))) {
        objects.add(Serialization.unmarshal(document));
      }
    }
    return objects;
  }
}
