package dev.tally.report.fabric8;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.AuditLog;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What the tests against the real control plane share: installing the CRDs and the shipped
 * ClusterRoles, subjects that are real Pods, publishing, reading back, and counting requests in the
 * API server's audit log.
 */
public final class RealServer {
  private RealServer() {}

  public static final List<String> OFFICIAL_CRDS =
      List.of(
          "wgpolicyk8s.io_policyreports.v1alpha2.yaml",
          "wgpolicyk8s.io_clusterpolicyreports.v1alpha2.yaml",
          "openreports.io_reports.v1alpha1.yaml",
          "openreports.io_clusterreports.v1alpha1.yaml");

  /**
   * The ClusterRole of {@link #tenant}'s rights (test resource rbac/tenant-namespace-admin.yaml).
   */
  public static final String TENANT_ROLE = "tally-test-tenant-namespace-admin";

  /**
   * A tenant's client, bound in {@code namespace} only to the rights a namespace admin has over
   * reports under Kyverno's default install (full control of EphemeralReports, PolicyReports,
   * Reports and Tally's PartialReports there).
   */
  public static KubernetesClient tenant(RealKubernetes.Cluster cluster, String namespace) {
    KubernetesClient admin = cluster.admin();
    byte[] role =
        TestResources.read("rbac/tenant-namespace-admin.yaml")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (var item : admin.load(new java.io.ByteArrayInputStream(role)).items()) {
      admin.resource(item).createOr(existing -> existing.update());
    }
    return cluster.tenant("tenant", namespace, TENANT_ROLE);
  }

  /** Creates (once per control plane) the official CRDs and Tally's, and waits until served. */
  public static synchronized void installCrds(KubernetesClient admin) {
    List<CustomResourceDefinition> crds = new ArrayList<>(TallyResources.crds());
    for (String file : OFFICIAL_CRDS) {
      crds.add(Serialization.unmarshal(TestResources.crd(file), CustomResourceDefinition.class));
    }
    for (CustomResourceDefinition crd : crds) {
      admin.resource(crd).createOr(existing -> existing.update());
    }
    for (CustomResourceDefinition crd : crds) {
      Await.until(
          crd.getMetadata().getName() + " is established",
          () -> {
            var served =
                admin
                    .apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .withName(crd.getMetadata().getName())
                    .get();
            return served != null
                && served.getStatus() != null
                && served.getStatus().getConditions().stream()
                    .anyMatch(
                        c -> c.getType().equals("Established") && c.getStatus().equals("True"));
          },
          Duration.ofSeconds(60));
    }
    // Established is not yet servable: until its watch cache is initialized the server answers
    // 429 "storage is (re)initializing" (the mock server never does)
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

  public static Subject subject(KubernetesClient admin, String ns, String name) {
    Pod pod = MockCluster.pod(admin, ns, name);
    return Subject.of("v1", "Pod", ns, name, pod.getMetadata().getUid());
  }

  /**
   * Waits until the controller applied {@code applied} partial reports and the flush each one
   * scheduled has run: with a zero flush window the flush is queued on the controller's thread
   * before anything submitted later, such as {@code desired()}.
   */
  public static void settle(AggregatorController controller, CountingMetrics metrics, int applied)
      throws Exception {
    Await.until(applied + " partial reports applied", () -> metrics.applied >= applied);
    controller.desired().get(60, java.util.concurrent.TimeUnit.SECONDS);
  }

  /** A mark in the API server's audit log: what is written after it is read with it. */
  public static long auditMark(RealKubernetes.Cluster cluster) {
    return AuditLog.of(cluster.env()).mark();
  }

  public static final Set<String> WRITE_VERBS = Set.of("create", "update", "patch", "delete");

  /**
   * Writes (create, update, patch, delete) completed after {@code mark} of the audit log by the
   * test's {@code producer} and {@code aggregator} service accounts, and beside them every
   * completed request by account, verb and resource (watches left out: the informers' streams).
   */
  public static java.util.Map<String, Integer> requestsSince(
      RealKubernetes.Cluster cluster, long mark, String ns) {
    java.util.Map<String, Integer> counts = new java.util.TreeMap<>();
    counts.put("producer", 0);
    counts.put("aggregator", 0);
    for (AuditLog.Event e : AuditLog.of(cluster.env()).since(mark)) {
      for (String account : List.of("producer", "aggregator")) {
        if (e.user().equals("system:serviceaccount:" + ns + ":" + account)) {
          if (WRITE_VERBS.contains(e.verb())) {
            counts.merge(account, 1, Integer::sum);
          }
          counts.merge(account + " " + e.verb() + " " + e.resource(), 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  /**
   * Waits until no partial report of another test is left in the cluster: a test's namespace is
   * deleted after it, and until the namespace controller has emptied it, an aggregator of the next
   * test sees its partial reports and fails to write into the terminating namespace (403), and each
   * failure makes it re-read what it owns. Tests that count requests or need a stale
   * resourceVersion call this first.
   */
  public static void awaitOnlyOwnPartials(KubernetesClient admin, String namespace) {
    Await.until(
        "the partial reports of earlier tests are gone",
        () ->
            admin.resources(PartialReportResource.class).inAnyNamespace().list().getItems().stream()
                    .allMatch(p -> namespace.equals(p.getMetadata().getNamespace()))
                && admin
                    .resources(dev.tally.report.fabric8.resource.ClusterPartialReportResource.class)
                    .list()
                    .getItems()
                    .isEmpty(),
        Duration.ofSeconds(180));
  }

  public static void installRbac(KubernetesClient admin) {
    for (HasMetadata role :
        admin
            .load(
                new java.io.ByteArrayInputStream(
                    TallyResources.rbacYaml().getBytes(java.nio.charset.StandardCharsets.UTF_8)))
            .items()) {
      admin.resource(role).createOr(existing -> existing.update());
    }
  }

  /** A per-namespace aggregator on {@code client}, flushing every 100 ms. */
  public static AggregatorController.Builder controllerOn(KubernetesClient client) {
    return AggregatorController.builder(client)
        .aggregator(() -> ReportAggregator.builder().build())
        .flushWindow(Duration.ofMillis(100));
  }

  /** {@link #controllerOn}, built and started. */
  public static AggregatorController startedController(KubernetesClient client) {
    return controllerOn(client).build().start();
  }

  /** Publishes one failure of {@code policy} about {@code subject} and waits for the write. */
  public static void publishFailure(
      PartialReportPublisher publisher, String producer, Subject subject, String policy)
      throws Exception {
    publisher
        .publish(
            PartialReport.builder()
                .producer(producer)
                .subject(subject)
                .results(List.of(fail(policy)))
                .observedAt(Timestamp.ofSeconds(1_700_000_000))
                .build())
        .get(120, java.util.concurrent.TimeUnit.SECONDS);
  }

  /** Results of Tally's PolicyReports in {@code ns}. */
  public static int results(KubernetesClient admin, String ns) {
    return admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems().stream()
        .mapToInt(r -> ReportCodec.decode(r).results().size())
        .sum();
  }

  public static Result fail(String policy) {
    return Result.builder()
        .source("kyverno")
        .policy(policy)
        .rule("check")
        .status(ResultStatus.FAIL)
        .message("label 'team' is required")
        .build();
  }

  /**
   * Waits, bounded, until the audit log holds a marker request made now, the admin's GET of a
   * ConfigMap of the test's namespace ({@link AuditLog#awaitMarker}): what completed before it is
   * logged by then. A count that expects no request (no write when nothing changed) has nothing
   * else to wait for; never read it as soon as the cluster's state looks right.
   */
  public static void awaitAuditMarker(RealKubernetes.Cluster cluster) {
    AuditLog.of(cluster.env()).awaitMarker(cluster.admin(), cluster.namespace());
  }

  /**
   * {@link #requestsSince}, once the audit log holds a marker request made now ({@link
   * #awaitAuditMarker}) and at least {@code atLeast} of each count named (a bounded wait, 30 s):
   * the log is written as each request completes, so a state the test saw (a report gone) can be
   * read before the request that made it is logged. Counting as soon as the state looks right
   * undercounts now and then; past the wait, what the log holds is returned for the assertion to
   * show.
   */
  public static java.util.Map<String, Integer> requestsOnceLogged(
      RealKubernetes.Cluster cluster,
      long mark,
      String ns,
      java.util.Map<String, Integer> atLeast) {
    awaitAuditMarker(cluster);
    var last = new java.util.concurrent.atomic.AtomicReference<java.util.Map<String, Integer>>();
    try {
      Await.until(
          "the audit log holds " + atLeast,
          () -> {
            var counts = requestsSince(cluster, mark, ns);
            last.set(counts);
            return atLeast.entrySet().stream()
                .allMatch(e -> counts.getOrDefault(e.getKey(), 0) >= e.getValue());
          },
          java.time.Duration.ofSeconds(30));
    } catch (AssertionError e) {
      // the caller's assertion names what is missing, with every count
    }
    return last.get();
  }

  /**
   * {@link #requestsSince}, once the audit log holds a marker request made now ({@link
   * #awaitAuditMarker}): for counts that expect no request of an account.
   */
  public static java.util.Map<String, Integer> requestsOnceMarked(
      RealKubernetes.Cluster cluster, long mark, String ns) {
    awaitAuditMarker(cluster);
    return requestsSince(cluster, mark, ns);
  }

  /**
   * The completed requests after {@code mark} of the audit log (watches, which complete only when
   * their stream ends, left out). Read as the cluster's state looks right, it may lack the last
   * requests: a count reads {@link #auditEventsOnceLogged} or {@link #auditEventsOnceMarked}.
   */
  public static List<AuditLog.Event> auditEvents(RealKubernetes.Cluster cluster, long mark) {
    return AuditLog.of(cluster.env()).since(mark);
  }

  /**
   * {@link #auditEvents}, once the audit log holds a marker request made now and {@code expected}
   * holds of them (each wait bounded, {@link AuditLog#sinceOnceLogged}); past the bound, what the
   * log holds, for the assertion to show.
   */
  public static List<AuditLog.Event> auditEventsOnceLogged(
      RealKubernetes.Cluster cluster,
      long mark,
      java.util.function.Predicate<List<AuditLog.Event>> expected) {
    return AuditLog.of(cluster.env())
        .sinceOnceLogged(mark, cluster.admin(), cluster.namespace(), expected);
  }

  /**
   * {@link #auditEvents}, once the audit log holds a marker request made now ({@link
   * #awaitAuditMarker}): for checks that expect no request of some kind.
   */
  public static List<AuditLog.Event> auditEventsOnceMarked(
      RealKubernetes.Cluster cluster, long mark) {
    awaitAuditMarker(cluster);
    return auditEvents(cluster, mark);
  }

  /** The partial reports in {@code ns}. */
  public static List<PartialReportResource> partials(KubernetesClient admin, String ns) {
    return admin.resources(PartialReportResource.class).inNamespace(ns).list().getItems();
  }
}
