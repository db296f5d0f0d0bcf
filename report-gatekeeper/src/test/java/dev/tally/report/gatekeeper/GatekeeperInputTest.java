package dev.tally.report.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.merge.gatekeeper.GatekeeperMapping;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Gatekeeper input through the controller, against the mock API server in CRUD mode, with
 * export files of the test's own (the shape v3.23.1's disk driver writes, as {@link
 * GatekeeperExportTest} gives it): a run cut short (no finish line, its last line half written, a
 * line that cannot be read) states nothing, even when its constraints' status names it, and the
 * finished run before it is read instead.
 */
@EnableKubernetesMockClient(crud = true)
class GatekeeperInputTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String NS = "team-a";
  private static final String KIND = "K8sRequiredLabels";
  private static final String CONSTRAINT = "must-have-owner";
  private static final String POLICY = GatekeeperMapping.policy(KIND, CONSTRAINT);

  private static final ResourceDefinitionContext CONSTRAINTS =
      new ResourceDefinitionContext.Builder()
          .withGroup("constraints.gatekeeper.sh")
          .withVersion("v1beta1")
          .withKind(KIND)
          .withPlural("k8srequiredlabels")
          .withNamespaced(false)
          .build();

  KubernetesMockServer server;
  KubernetesClient client;

  @TempDir Path dir;

  @Test
  void aRunCutShortStatesNothingThoughItsStatusNamesItAndTheFinishedRunBeforeItIsRead()
      throws Exception {
    // discovery of the core group, which the mock server in CRUD mode does not serve
    server
        .expect()
        .get()
        .withPath("/api/v1")
        .andReturn(
            200,
            Map.of(
                "kind",
                "APIResourceList",
                "groupVersion",
                "v1",
                "resources",
                List.of(
                    Map.of(
                        "name",
                        "configmaps",
                        "kind",
                        "ConfigMap",
                        "namespaced",
                        true,
                        "singularName",
                        "",
                        "verbs",
                        List.of("get", "list")))))
        .always();
    template();
    Map<String, String> uids = new java.util.TreeMap<>();
    for (String name : List.of("a", "b", "c1", "c2", "c3")) {
      uids.put(name, configMap(name));
    }
    constraint("");
    String r1 = "2026-01-01T00:00:00Z";
    writeRun(r1, finished(r1, "a", "b"));
    stamp(r1);

    try (AggregatorController controller =
        AggregatorController.builder(client)
            .aggregator(
                () ->
                    ReportAggregator.builder()
                        .grouping(Grouping.perNamespace())
                        .input("gatekeeper")
                        .build())
            .input(
                GatekeeperInput.reading(dir)
                    .withPollPeriod(Duration.ofMillis(50))
                    .withLookupKinds(Set.of("configmaps")))
            .flushWindow(Duration.ofMillis(50))
            .build()
            .start()) {
      awaitReported("the first run", uids, "a", "b");

      // each phase: a run cut short whose constraint's status names it and which names nobody (so
      // that, were it read, it would retract every result), then a finished run started before it
      // that names one resource more and is not confirmed (so it retracts nothing). The report
      // shows the finished run's addition and nothing retracted: the run cut short was passed over
      List<String> named = new ArrayList<>(List.of("a"));
      int minute = 1;
      for (String cut : List.of("no finish line", "half a last line", "an unreadable line")) {
        String added = "c" + minute;
        named.add(added);
        String finished = String.format("2026-01-01T00:%02d:00Z", 2 * minute);
        String cutShort = String.format("2026-01-01T00:%02d:30Z", 2 * minute);
        String cutContent =
            switch (cut) {
              case "no finish line" -> start(cutShort);
              case "half a last line" -> start(cutShort) + finish(cutShort).substring(0, 20);
              default -> start(cutShort) + "{\"id\":\"" + cutShort + "\",oops\n" + finish(cutShort);
            };
        writeRun(cutShort, cutContent);
        stamp(cutShort);
        writeRun(finished, finished(finished, named.toArray(String[]::new)));
        List<String> expected = new ArrayList<>(named);
        expected.add("b");
        awaitReported(
            "a finished run read past a run cut short by " + cut,
            uids,
            expected.toArray(String[]::new));
        minute++;
      }
      // a run still being written (.txt) is not read at all
      String inProgress = "2026-01-01T00:10:00Z";
      Files.writeString(
          dir.resolve(inProgress.replace(':', '_') + ".txt"),
          start(inProgress),
          StandardCharsets.UTF_8);
      stamp(inProgress);

      // two runs finish and are confirmed: the second in a row to omit them retracts what they no
      // longer name (one alone could be a run that missed a kind, which Gatekeeper finishes too)
      String last = "2026-01-01T00:11:00Z";
      String first = "2026-01-01T00:10:30Z";
      stamp(first); // as Gatekeeper does, before the file is renamed finished
      writeRun(first, finished(first, "a"));
      // stated: a's result in the aggregator's state is at the run's time; one run omitting them
      // retracts nothing
      Await.until("run " + first + " is stated", () -> stated(controller, first), WAIT);
      controller.flushNow().get();
      assertThat(reported()).hasSize(5);
      stamp(last);
      writeRun(last, finished(last, "a"));
      awaitReported("the second confirmed run in a row retracts", uids, "a");
      assertThat(controller.desired().get().stream().mapToInt(r -> r.results().size()).sum())
          .isEqualTo(1);

      // a second run started in the same second replaces the file (the driver renames its .txt over
      // the .log of the same name): it comes after the first, and outranks it
      writeRun(last, finished(last, "a", "b"));
      awaitReported("the run that replaced the file of its second", uids, "a", "b");
    }
  }

  @Test
  void badSettingsAreRefusedNamingTheField() {
    GatekeeperInput input = GatekeeperInput.reading(dir);
    assertThatThrownBy(() -> input.withPollPeriod(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pollPeriod");
    assertThatThrownBy(() -> input.withLookupKinds(Set.of("Pods")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lookupKinds")
        .hasMessageContaining("Pods");
    assertThat(input.name()).isEqualTo("gatekeeper");
    assertThat(input.kinds(client)).isEmpty();
  }

  /** Whether a result in the aggregator's state is at run {@code id}'s time. */
  private static boolean stated(AggregatorController controller, String id) {
    dev.tally.report.api.Timestamp started =
        dev.tally.report.api.Timestamp.ofSeconds(java.time.Instant.parse(id).getEpochSecond());
    try {
      return controller.desired().get(60, java.util.concurrent.TimeUnit.SECONDS).stream()
          .flatMap(r -> r.results().stream())
          .anyMatch(r -> r.timestamp().equals(java.util.Optional.of(started)));
    } catch (Exception e) {
      throw new IllegalStateException("the aggregator's state cannot be read", e);
    }
  }

  private void awaitReported(String what, Map<String, String> uids, String... names) {
    Set<String> expected = new TreeSet<>();
    for (String n : names) {
      expected.add(uids.get(n));
    }
    Await.until(
        what + ": the report holds " + List.of(names), () -> reported().equals(expected), WAIT);
  }

  /** The uids of the failed results of the constraint in the namespace's PolicyReports. */
  private Set<String> reported() {
    return Reported.failingUids(client, NS, POLICY);
  }

  private void writeRun(String id, String content) throws IOException {
    Path txt = dir.resolve(id.replace(':', '_') + ".txt");
    Files.writeString(txt, content, StandardCharsets.UTF_8);
    // renamed as the driver does once the run is over, so that a reader never meets it half copied
    Files.move(
        txt,
        dir.resolve(id.replace(':', '_') + GatekeeperExport.FINISHED_SUFFIX),
        java.nio.file.StandardCopyOption.ATOMIC_MOVE,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  private static String start(String id) {
    return "{\"id\":\"" + id + "\",\"message\":\"audit is started\"}\n";
  }

  private static String finish(String id) {
    return "{\"id\":\"" + id + "\",\"message\":\"audit is completed\"}\n";
  }

  private static String finished(String id, String... configMaps) {
    StringBuilder run = new StringBuilder(start(id));
    for (String name : configMaps) {
      run.append("{\"id\":\"")
          .append(id)
          .append("\",\"eventType\":\"violation_audited\",\"group\":\"constraints.gatekeeper.sh\",")
          .append("\"version\":\"v1beta1\",\"kind\":\"" + KIND + "\",\"name\":\"" + CONSTRAINT)
          .append("\",\"message\":\"no owner\",\"enforcementAction\":\"deny\",")
          .append("\"resourceAPIVersion\":\"v1\",\"resourceKind\":\"ConfigMap\",")
          .append("\"resourceNamespace\":\"" + NS + "\",\"resourceName\":\"" + name + "\"}\n");
    }
    return run.append(finish(id)).toString();
  }

  private String configMap(String name) {
    return client
        .configMaps()
        .inNamespace(NS)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withData(Map.of("k", "v"))
                .build())
        .create()
        .getMetadata()
        .getUid();
  }

  private void template() {
    GenericKubernetesResource t =
        new GenericKubernetesResourceBuilder()
            .withApiVersion("templates.gatekeeper.sh/v1")
            .withKind("ConstraintTemplate")
            .withNewMetadata()
            .withName("k8srequiredlabels")
            .endMetadata()
            .build();
    t.setAdditionalProperty(
        "spec", Map.of("crd", Map.of("spec", Map.of("names", Map.of("kind", KIND)))));
    client.genericKubernetesResources(ConstraintStatuses.TEMPLATES).resource(t).create();
  }

  private void constraint(String auditTimestamp) {
    GenericKubernetesResource c =
        new GenericKubernetesResourceBuilder()
            .withApiVersion("constraints.gatekeeper.sh/v1beta1")
            .withKind(KIND)
            .withNewMetadata()
            .withName(CONSTRAINT)
            .endMetadata()
            .build();
    c.setAdditionalProperty("status", Map.of("auditTimestamp", auditTimestamp));
    client.genericKubernetesResources(CONSTRAINTS).resource(c).create();
  }

  /** The constraint's status names run {@code id} as its audit, as Gatekeeper writes it. */
  private void stamp(String id) {
    client
        .genericKubernetesResources(CONSTRAINTS)
        .withName(CONSTRAINT)
        .edit(
            c -> {
              c.setAdditionalProperty("status", Map.of("auditTimestamp", id, "totalViolations", 0));
              return c;
            });
  }
}
