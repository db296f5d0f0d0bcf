package dev.tally.aggregator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.TallyResources;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code java -jar tally-aggregator.jar --kubeconfig …} against the real control plane, as a
 * service account bound as deploy/ binds it (the shipped ClusterRole {@code tally-aggregator}
 * cluster-wide, {@code tally-aggregator-lease} in the Lease's namespace only): it aggregates what a
 * producer (bound only to {@code tally-producer}) publishes, its metrics move with the writes, its
 * probes answer, and SIGTERM stops it with exit 0 and the Lease released.
 */
@ExtendWith(RealKubernetes.class)
class AggregatorJarIT {
  @Test
  void theJarAggregatesPartialReportsServesItsProbesAndMetricsAndStopsCleanlyOnSigterm(
      RealKubernetes.Cluster cluster, @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    TallyResources.installClusterRoles(admin);
    awaitReportKindsServed(admin);
    KubernetesClient producer = cluster.serviceAccount("producer", "tally-producer");
    KubernetesClient aggregatorAccount = cluster.serviceAccount("aggregator", "tally-aggregator");
    // as deploy/31-clusterrolebinding.yaml: the Lease rights only in the Lease's namespace
    bindInNamespace(admin, ns, "aggregator", "tally-aggregator-lease");
    Path kubeconfig =
        kubeconfigFor(cluster, aggregatorAccount, dir.resolve("aggregator.kubeconfig"));
    int port = freePort();

    try (PartialReportPublisher publisher = PartialReportPublisher.builder(producer).build();
        JarProcess jar =
            JarProcess.start(
                "aggregator",
                port,
                "--kubeconfig",
                kubeconfig.toString(),
                "--grouping",
                "per-namespace",
                "--format",
                "wgpolicy",
                "--lease-namespace",
                ns,
                "--identity",
                "replica-a",
                "--lease-duration=6s",
                "--renew-deadline=4s",
                "--retry-period=500ms",
                "--flush-window=100ms",
                "--http-port",
                Integer.toString(port))) {
      await(jar, "/healthz answers 200", () -> jar.status("/healthz") == 200);
      // ready once started: a standby has nothing else to do; the leader once it has rebuilt
      await(jar, "/readyz answers 200", () -> jar.status("/readyz") == 200);
      metricsWhen(jar, m -> "1.0".equals(m.get("tally_leader")));
      await(jar, "/readyz answers 200 as the leader", () -> jar.status("/readyz") == 200);
      Map<String, String> before = PrometheusMetricsTest.samples(jar.get("/metrics").body());
      assertThat(jar.get("/metrics").headers().firstValue("Content-Type"))
          .hasValue(PrometheusMetrics.CONTENT_TYPE);
      assertThat(before).containsEntry("tally_leader", "1.0").containsEntry("tally_ready", "1.0");
      assertThat(lease(admin, ns).getHolderIdentity()).isEqualTo("replica-a");

      Subject web = subject(admin, ns, "web-0");
      Subject api = subject(admin, ns, "api-0");
      publish(publisher, web, "require-labels");
      publish(publisher, api, "require-labels");
      await(jar, "the aggregate holds both results", () -> results(admin, ns) == 2);
      // settled: every input so far written, so every write of it counted (the two evaluations
      // may have been flushed apart, a create and then an update, the update's count lagging the
      // aggregate the cluster shows)
      Map<String, String> afterCreate =
          metricsWhen(jar, m -> count(m, WRITES_CREATE) >= 1 && settled(m));
      assertThat(count(afterCreate, APPLIED) - count(before, APPLIED)).isGreaterThanOrEqualTo(2);
      assertThat(count(afterCreate, WRITES_CREATE) - count(before, WRITES_CREATE)).isEqualTo(1);
      assertThat(count(afterCreate, FLUSHES)).isGreaterThan(count(before, FLUSHES));

      // a newer evaluation of one subject, of another policy (it covers only that policy, so the
      // first result stays): one update of the same aggregate
      publish(publisher, web, "disallow-latest");
      await(
          jar,
          "the aggregate holds the new result",
          () -> results(admin, ns) == 3 && policies(admin, ns).contains("disallow-latest"));
      Map<String, String> afterUpdate =
          metricsWhen(
              jar, m -> count(m, WRITES_UPDATE) > count(afterCreate, WRITES_UPDATE) && settled(m));
      assertThat(count(afterUpdate, WRITES_UPDATE) - count(afterCreate, WRITES_UPDATE))
          .isEqualTo(1);
      assertThat(count(afterUpdate, WRITES_CREATE)).isEqualTo(count(afterCreate, WRITES_CREATE));

      // SIGTERM
      jar.process.destroy();
      int code = jar.waitFor(Duration.ofSeconds(60));
      assertThat(code).as(jar.output()).isZero();
      LeaseSpec released = lease(admin, ns);
      assertThat(released.getHolderIdentity()).as("the Lease is released").isNullOrEmpty();
      assertThat(jar.stderr()).contains("stopped").doesNotContain("\tat ", "ERROR");
      assertThat(results(admin, ns)).as("the aggregate stays").isEqualTo(3);

      // the next replica acquires the released Lease at once, not after the lease duration
      try (JarProcess next =
          JarProcess.start(
              "aggregator-next",
              freePort(),
              "--kubeconfig",
              kubeconfig.toString(),
              "--lease-namespace",
              ns,
              "--identity",
              "replica-b",
              "--lease-duration=60s",
              "--renew-deadline=40s",
              "--retry-period=500ms",
              "--http-port=0")) {
        await(
            next,
            "replica-b holds the Lease",
            () -> "replica-b".equals(lease(admin, ns).getHolderIdentity()));
        next.process.destroy();
        assertThat(next.waitFor(Duration.ofSeconds(60))).as(next.output()).isZero();
      }
    }
  }

  private static final String APPLIED = "tally_partials_applied_total";
  private static final String WRITES_CREATE = "tally_writes_total{verb=\"create\"}";
  private static final String WRITES_UPDATE = "tally_writes_total{verb=\"update\"}";
  private static final String FLUSHES = "tally_flush_seconds_count";

  private static long count(Map<String, String> metrics, String series) {
    String value = metrics.get(series);
    assertThat(value).as(series + " in " + metrics.keySet()).isNotNull();
    // Micrometer counters are doubles (1.0), a summary's count a whole number (1)
    return (long) Double.parseDouble(value);
  }

  /** Whether no input waits to be written: the writes of all inputs so far are counted. */
  private static boolean settled(Map<String, String> metrics) {
    return Double.parseDouble(metrics.getOrDefault("tally_input_oldest_age_seconds", "1")) == 0;
  }

  private static Map<String, String> metricsWhen(
      JarProcess jar, java.util.function.Predicate<Map<String, String>> condition)
      throws Exception {
    Map<String, String>[] last = new Map[1];
    await(
        jar,
        "the metrics show the writes",
        () -> {
          try {
            last[0] = PrometheusMetricsTest.samples(jar.get("/metrics").body());
            return condition.test(last[0]);
          } catch (IOException | InterruptedException e) {
            return false;
          }
        });
    return last[0];
  }

  /** A kubeconfig for the service account's token, as a user would write one. */
  static Path kubeconfigFor(RealKubernetes.Cluster cluster, KubernetesClient account, Path file)
      throws IOException {
    String token = account.getConfiguration().getOauthToken();
    String ca = cluster.env().adminConfig().getCaCertData();
    assertThat(token).isNotBlank();
    assertThat(ca).isNotBlank();
    return Files.writeString(
        file,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: testenv",
            "  cluster:",
            "    server: " + cluster.env().server(),
            "    certificate-authority-data: " + ca,
            "users:",
            "- name: tally-aggregator",
            "  user:",
            "    token: " + token,
            "contexts:",
            "- name: tally-aggregator",
            "  context:",
            "    cluster: testenv",
            "    user: tally-aggregator",
            "    namespace: " + cluster.namespace(),
            "current-context: tally-aggregator",
            ""));
  }

  /** A RoleBinding of {@code clusterRole} to the test's service account, in {@code ns} only. */
  static void bindInNamespace(
      KubernetesClient admin, String ns, String account, String clusterRole) {
    admin
        .rbac()
        .roleBindings()
        .inNamespace(ns)
        .resource(
            new io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder()
                .withNewMetadata()
                .withName(account + "-" + clusterRole)
                .withNamespace(ns)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", clusterRole)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(account)
                .withNamespace(ns)
                .endSubject()
                .build())
        .create();
  }

  /**
   * The control plane installs the report CRDs at start; a CRD answers 429 "storage is
   * (re)initializing" for a moment after it is Established.
   */
  static void awaitReportKindsServed(KubernetesClient admin) {
    Await.until(
        "the report kinds are served",
        () -> {
          try {
            admin.resources(PolicyReportResource.class).inAnyNamespace().list();
            admin.resources(PartialReportResource.class).inAnyNamespace().list();
            return true;
          } catch (KubernetesClientException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }

  private static LeaseSpec lease(KubernetesClient admin, String ns) {
    var lease = admin.leases().inNamespace(ns).withName("tally-aggregator").get();
    assertThat(lease).as("the Lease exists").isNotNull();
    return lease.getSpec();
  }

  static Subject subject(KubernetesClient admin, String ns, String name) {
    Pod pod = pod(admin, ns, name);
    return Subject.of("v1", "Pod", ns, name, pod.getMetadata().getUid());
  }

  /** A Pod the server accepts (no node runs it). */
  static Pod pod(KubernetesClient admin, String ns, String name) {
    return admin
        .pods()
        .inNamespace(ns)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("registry.invalid/app:1")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private static long observed = 1_700_000_000;

  static void publish(PartialReportPublisher publisher, Subject subject, String policy)
      throws Exception {
    publisher
        .publish(
            PartialReport.builder()
                .producer("admission")
                .subject(subject)
                .results(
                    List.of(
                        Result.builder()
                            .source("kyverno")
                            .policy(policy)
                            .rule("check")
                            .status(ResultStatus.FAIL)
                            .message("label 'team' is required")
                            .build()))
                .observedAt(Timestamp.ofSeconds(observed++))
                .build())
        .get(120, TimeUnit.SECONDS);
  }

  static int results(KubernetesClient admin, String ns) {
    return admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems().stream()
        .mapToInt(r -> ReportCodec.decode(r).results().size())
        .sum();
  }

  private static List<String> policies(KubernetesClient admin, String ns) {
    return admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems().stream()
        .flatMap(r -> ReportCodec.decode(r).results().stream())
        .map(Result::policy)
        .toList();
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Waits for {@code condition}, at most 90 s; fails with the aggregator's output. */
  static void await(JarProcess jar, String what, BooleanSupplier condition) {
    try {
      Await.until(
          what,
          () -> {
            if (!jar.process.isAlive()) {
              throw new AssertionError(
                  "the aggregator exited (" + jar.process.exitValue() + ") before: " + what);
            }
            return condition.getAsBoolean();
          },
          Duration.ofSeconds(90));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + jar.output(), e);
    }
  }
}
