package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.fabric8.TallyResources;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's alerting rules in a real Prometheus (built from kube-testenv's module) that scrapes a
 * real aggregator (the jar) on kube-testenv: while the aggregator's role may list its input, {@code
 * TallyInputNotSyncing} stays quiet; once the test revokes the role's {@code list}, the leader's
 * periodic re-lists fail and the alert fires within three periods and its {@code for:}; once the
 * role is back, it resolves.
 *
 * <p>The timings are shortened so that a run takes seconds, and only these: the aggregator re-lists
 * every {@value #PERIOD_SECONDS} s, Prometheus scrapes and evaluates every second, and the alert's
 * {@code for:} is {@value #FOR_SECONDS} s in the copy of the rules Prometheus loads (5m as shipped;
 * promtool's tests in PrometheusRulesTest run the shipped file as it is). The expression is the
 * shipped one.
 */
@ExtendWith(RealKubernetes.class)
class PrometheusAlertIT {
  private static final String ALERT = "TallyInputNotSyncing";
  private static final int PERIOD_SECONDS = 2;
  private static final int FOR_SECONDS = 10;

  /** What scrapes and evaluations may add to the time the alert takes to fire. */
  private static final int SLACK_SECONDS = 15;

  /** What the API's answers hold while Prometheus is not up yet: no alert, no sample. */
  private static final Map<String, Object> NOTHING =
      Map.of("data", Map.of("alerts", List.of(), "result", List.of()));

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @Test
  void theInputNotSyncingAlertFiresOnceTheInputsListIsRevokedAndResolvesOnceItIsBack(
      RealKubernetes.Cluster cluster, @TempDir Path dir) throws Exception {
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    TallyResources.installClusterRoles(admin);
    AggregatorJarIT.awaitReportKindsServed(admin);
    // a copy of the shipped aggregator role, of this test's own: its list is what the test revokes
    String role =
        cluster.clusterRole(
            "aggregator",
            admin.rbac().clusterRoles().withName("tally-aggregator").get().getRules());
    Process prometheus = null;
    try {
      KubernetesClient account = cluster.serviceAccount("alerted", role);
      AggregatorJarIT.bindInNamespace(admin, ns, "alerted", "tally-aggregator-lease");
      Path kubeconfig =
          AggregatorJarIT.kubeconfigFor(cluster, account, dir.resolve("alerted.kubeconfig"));
      int port = AggregatorJarIT.freePort();
      try (JarProcess jar =
          JarProcess.start(
              "alerted",
              port,
              "--kubeconfig",
              kubeconfig.toString(),
              "--lease-namespace",
              ns,
              "--identity",
              "alerted",
              "--resync-period=" + PERIOD_SECONDS + "s",
              "--http-port",
              Integer.toString(port))) {
        AggregatorJarIT.await(jar, "/readyz answers 200", () -> jar.status("/readyz") == 200);

        int web = AggregatorJarIT.freePort();
        prometheus = startPrometheus(dir, ns, port, web);
        String api = "http://127.0.0.1:" + web + "/api/v1/";
        Process p = prometheus;
        Await.until(
            "Prometheus scrapes the aggregator, which leads, and has evaluated the rules since",
            () -> {
              assertThat(p.isAlive()).as("Prometheus runs: " + log(dir)).isTrue();
              return value(api, "tally_leader").orElse(0.0) == 1.0
                  && value(api, "tally_resync_period_seconds").orElse(0.0) == PERIOD_SECONDS
                  // ten scrapes of the leader re-listing: ten evaluations of the rule
                  && value(api, "count_over_time(tally_resync_last_age_seconds[1m]) >= 10")
                      .isPresent();
            },
            Duration.ofSeconds(120));
        assertThat(state(api)).as("the alert while the input lists").isEmpty();
        assertThat(value(api, "ALERTS{alertname=\"" + ALERT + "\"}"))
            .as("the alert's series while the input lists")
            .isEmpty();

        setListOfInput(admin, role, false);
        // the bound, not a measurement: three periods until the resync's age passes the rule's
        // threshold, the for:, and slack for scrapes and evaluations (one a second) on a busy
        // machine
        Await.until(
            ALERT + " fires within three periods, its for: and " + SLACK_SECONDS + " s",
            () -> state(api).filter("firing"::equals).isPresent(),
            Duration.ofSeconds(3L * PERIOD_SECONDS + FOR_SECONDS + SLACK_SECONDS));
        assertThat(jar.stderr()).contains("periodic re-list failed");

        setListOfInput(admin, role, true);
        Await.until(
            ALERT + " resolves once the role may list again",
            () -> state(api).isEmpty(),
            Duration.ofSeconds(120));
      }
    } finally {
      if (prometheus != null) {
        prometheus.destroy();
        prometheus.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  /** Prometheus on {@code web}, scraping the aggregator's port with the test's rules. */
  private static Process startPrometheus(Path dir, String ns, int target, int web)
      throws IOException {
    Map<String, Object> rules =
        castMap(Serialization.unmarshal(Files.readString(PrometheusTools.RULES), Map.class));
    boolean shortened = false;
    for (Object group : (List<?>) rules.get("groups")) {
      for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
        Map<String, Object> r = castMap(rule);
        if (ALERT.equals(r.get("alert"))) {
          r.put("for", FOR_SECONDS + "s");
          shortened = true;
        }
      }
    }
    assertThat(shortened).as(ALERT + " is among the shipped rules").isTrue();
    Files.writeString(dir.resolve("rules.yaml"), Serialization.asYaml(rules));
    Files.writeString(
        dir.resolve("prometheus.yml"),
        """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        rule_files: [rules.yaml]
        scrape_configs:
          - job_name: tally-aggregator
            static_configs:
              - targets: ["127.0.0.1:%d"]
                labels: {namespace: %s, pod: alerted}
        """
            .formatted(target, ns));
    return new ProcessBuilder(
            PrometheusTools.built().program("prometheus").toString(),
            "--config.file=prometheus.yml",
            "--storage.tsdb.path=data",
            "--web.listen-address=127.0.0.1:" + web,
            "--log.level=warn")
        .directory(dir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("prometheus.log").toFile())
        .start();
  }

  /** Gives or takes the {@code list} of Tally's partial reports in the test's copy of the role. */
  private static void setListOfInput(KubernetesClient admin, String role, boolean may) {
    admin
        .rbac()
        .clusterRoles()
        .withName(role)
        .edit(
            r -> {
              List<PolicyRule> rules = new ArrayList<>();
              for (PolicyRule rule : r.getRules()) {
                if (rule.getResources().stream().anyMatch(res -> res.endsWith("partialreports"))) {
                  List<String> verbs = new ArrayList<>(rule.getVerbs());
                  verbs.remove("list");
                  if (may) {
                    verbs.add("list");
                  }
                  rule = new PolicyRuleBuilder(rule).withVerbs(verbs).build();
                }
                rules.add(rule);
              }
              return new ClusterRoleBuilder(r).withRules(rules).build();
            });
  }

  /** The state of {@value #ALERT} (pending, firing), empty when it is neither. */
  private static Optional<String> state(String api) {
    Map<?, ?> data = (Map<?, ?>) get(api + "alerts").get("data");
    for (Object a : (List<?>) data.get("alerts")) {
      Map<?, ?> alert = (Map<?, ?>) a;
      if (ALERT.equals(((Map<?, ?>) alert.get("labels")).get("alertname"))) {
        return Optional.of((String) alert.get("state"));
      }
    }
    return Optional.empty();
  }

  /** The value of an instant query that yields one sample, empty when it yields none. */
  private static Optional<Double> value(String api, String query) {
    Map<?, ?> data =
        (Map<?, ?>)
            get(api
                    + "query?query="
                    + java.net.URLEncoder.encode(query, java.nio.charset.StandardCharsets.UTF_8))
                .get("data");
    List<?> result = (List<?>) data.get("result");
    if (result.size() != 1) {
      return Optional.empty();
    }
    List<?> sample = (List<?>) ((Map<?, ?>) result.get(0)).get("value");
    return Optional.of(Double.parseDouble((String) sample.get(1)));
  }

  private static Map<?, ?> get(String url) {
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() == 200) {
        return Serialization.unmarshal(response.body(), Map.class);
      }
      // starting (503 while its storage opens)
      return NOTHING;
    } catch (IOException e) {
      // not listening yet
      return NOTHING;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String log(Path dir) {
    try {
      return Files.readString(dir.resolve("prometheus.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Object o) {
    return (Map<String, Object>) o;
  }
}
