package dev.tally.report.fabric8;

import static dev.tally.report.fabric8.RealServer.controllerOn;
import static dev.tally.report.fabric8.RealServer.fail;
import static dev.tally.report.fabric8.RealServer.installCrds;
import static dev.tally.report.fabric8.RealServer.installRbac;
import static dev.tally.report.fabric8.RealServer.partials;
import static dev.tally.report.fabric8.RealServer.publishFailure;
import static dev.tally.report.fabric8.RealServer.results;
import static dev.tally.report.fabric8.RealServer.startedController;
import static dev.tally.report.fabric8.RealServer.subject;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.client.RetryPolicy;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.PagedList;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.AuditLog;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The adapter against a real kube-apiserver (kube-testenv): schema validation by the server itself,
 * and garbage collection of partial reports by the real garbage collector. Skipped loudly without
 * Go; required under CI.
 */
@ExtendWith(RealKubernetes.class)
class RealServerTest {
  @Test
  void everythingTallyWritesIsAcceptedByTheServersSchemaValidationInBothFormats(
      RealKubernetes.Cluster cluster) {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    for (ReportFormat format : ReportFormat.values()) {
      ReportAggregator aggregator =
          ReportAggregator.builder()
              .format(format)
              .grouping(Grouping.perNamespace())
              // small partitions, close to their byte limit
              .limits(ReportLimits.defaults().withMaxBytes(ReportLimits.MIN_MAX_BYTES))
              .build();
      for (int i = 0; i < 40; i++) {
        aggregator.apply(partial(cluster.namespace(), i));
        aggregator.apply(partial("", i)); // cluster-scoped subjects: the cluster kinds
      }
      List<Change> changes = aggregator.flush().changes();
      assertThat(changes).hasSizeGreaterThan(2);
      for (Change change : changes) {
        AggregateReport report = ((Change.Create) change).report();
        HasMetadata written = admin.resource(ReportCodec.encode(report)).create();
        assertThat(written.getMetadata().getResourceVersion()).isNotBlank();
      }
      for (Change change : changes) {
        AggregateReport report = ((Change.Create) change).report();
        admin.resource(ReportCodec.encode(report)).delete();
      }
    }
  }

  @Test
  void theServerRefusesWhatItsSchemaDoesNotAllow(RealKubernetes.Cluster cluster) {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    GenericKubernetesResource bad =
        Serialization.unmarshal(
            "apiVersion: wgpolicyk8s.io/v1alpha2\n"
                + "kind: PolicyReport\n"
                + "metadata:\n"
                + "  name: not-a-status\n"
                + "  namespace: "
                + cluster.namespace()
                + "\n"
                + "results:\n"
                + "- policy: p\n"
                + "  result: maybe\n",
            GenericKubernetesResource.class);

    var e =
        catchThrowableOfType(() -> admin.resource(bad).create(), KubernetesClientException.class);

    assertThat(e.getCode()).isEqualTo(422);
    assertThat(e.getMessage()).contains("result");
  }

  /**
   * Deleting a Pod: the real garbage collector removes its partial reports through their
   * ownerReferences, and the aggregator retracts their results (the aggregate goes away with the
   * last of them).
   */
  @Test
  void deletingAPodGarbageCollectsItsPartialReportsAndTheAggregatorRetractsThem(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    Subject subject = subject(admin, ns, "web-0");
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build();
        AggregatorController controller = startedController(admin)) {
      publishFailure(publisher, "background", subject, "require-labels");
      Await.until("the aggregate holds the pod's failure", () -> results(admin, ns) == 1);

      admin.pods().inNamespace(ns).withName("web-0").delete();

      Await.until(
          "the garbage collector removes the pod's partial report",
          () -> partials(admin, ns).isEmpty());
      Await.until("the aggregate is gone with the pod's results", () -> results(admin, ns) == 0);
      assertThat(controller.isLeading()).isTrue();
    }
  }

  /**
   * RBAC: the aggregator and a producer run as service accounts bound only to the ClusterRoles
   * Tally ships; both do their work, and the producer is refused when it writes an aggregate.
   */
  @Test
  void theShippedClusterRolesSufficeAndAProducerCannotWriteAnAggregate(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installRbac(admin);
    String ns = cluster.namespace();
    KubernetesClient producer = cluster.serviceAccount("producer", "tally-producer");
    KubernetesClient aggregatorAccount = cluster.serviceAccount("aggregator", "tally-aggregator");
    Subject subject = subject(admin, ns, "api-0");
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(producer).build();
        AggregatorController controller = startedController(aggregatorAccount)) {
      publishFailure(publisher, "admission", subject, "disallow-latest");
      Await.until("the aggregator, as its service account, writes", () -> results(admin, ns) == 1);
      assertThat(controller.isLeading()).isTrue();

      AggregateReport forged =
          ReportCodec.decode(
              admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems().get(0));
      var e =
          catchThrowableOfType(
              () ->
                  producer
                      .resource(
                          ReportCodec.encode(
                              new AggregateReport(
                                  new dev.tally.report.api.ReportRef(
                                      forged.ref().kind(), ns, "forged"),
                                  forged.labels(),
                                  forged.scope(),
                                  forged.owner(),
                                  forged.configuration(),
                                  forged.results(),
                                  forged.summary(),
                                  forged.contentHash())))
                      .create(),
              KubernetesClientException.class);
      assertThat(e.getCode()).isEqualTo(403);
    }
  }

  /**
   * Paged LISTs with the server's real {@code limit} and {@code continue}; a continue token that
   * expires because etcd was compacted gives a real 410, and Tally's paged LIST starts over and
   * returns every object once.
   */
  @Test
  void anExpiredContinueTokenIsARealGoneAndThePagedListStartsOver(RealKubernetes.Cluster cluster) {
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    for (int i = 0; i < 12; i++) {
      admin
          .configMaps()
          .inNamespace(ns)
          .resource(
              new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("cm-" + i)
                  .endMetadata()
                  .build())
          .create();
    }
    ApiCalls calls =
        new ApiCalls(
            ApiBudget.of(1000, 1000),
            RetryPolicy.defaults(),
            new java.util.Random(1),
            new RecordingSleeper(),
            TallyMetrics.NONE);
    java.util.concurrent.atomic.AtomicInteger pages =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger gone =
        new java.util.concurrent.atomic.AtomicInteger();

    var all =
        PagedList.all(
            calls,
            "configmaps",
            options -> {
              options.setLimit(5L); // real pages of 5
              if (pages.incrementAndGet() == 2) {
                cluster.env().compactEtcd(); // the first page's continue token expires
                // the API server learns of a compaction from etcd within about 15 s (the mock
                // server knows no continue tokens at all): wait until it refuses this token
                Await.until(
                    "the API server sees the compaction",
                    () -> {
                      try {
                        admin.configMaps().inNamespace(ns).list(options);
                        return false;
                      } catch (KubernetesClientException e) {
                        return e.getCode() == 410;
                      }
                    },
                    Duration.ofSeconds(60));
              }
              try {
                return admin.configMaps().inNamespace(ns).list(options);
              } catch (KubernetesClientException e) {
                if (e.getCode() == 410) {
                  gone.incrementAndGet();
                }
                throw e;
              }
            });

    assertThat(gone.get()).as("the server answered 410 Gone").isEqualTo(1);
    // a real namespace also holds kube-root-ca.crt, published by the controller manager
    assertThat(all)
        .extracting(c -> c.getMetadata().getName())
        .doesNotHaveDuplicates()
        .filteredOn(n -> n.startsWith("cm-"))
        .hasSize(12);
    assertThat(pages.get()).isEqualTo(2 + 3); // the failed second page, then 3 pages from the start
  }

  /**
   * Leader failover over a real Lease: two replicas, each a service account bound to {@code
   * tally-aggregator} only, one leads. Its client is closed abruptly (no release, no goodbye, as
   * when the process dies); the other takes the Lease over once it expires and goes on aggregating.
   * From the audit log: every aggregate write happened once, none lost or made twice.
   */
  @Test
  void whenTheLeaderDiesTheOtherReplicaTakesOverOnARealLease(RealKubernetes.Cluster cluster)
      throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installRbac(admin);
    String ns = cluster.namespace();
    Subject first = subject(admin, ns, "first");
    Subject second = subject(admin, ns, "second");
    KubernetesClient clientA =
        cluster.serviceAccount("replica-a", "tally-aggregator", "tally-aggregator-lease");
    KubernetesClient clientB =
        cluster.serviceAccount("replica-b", "tally-aggregator", "tally-aggregator-lease");
    long mark = RealServer.auditMark(cluster);
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build()) {
      AggregatorController a = elected(clientA, ns, "replica-a");
      AggregatorController b = elected(clientB, ns, "replica-b");
      try {
        Await.until("one replica leads", () -> a.isLeading() || b.isLeading());
        publishFailure(publisher, "background", first, "require-labels");
        Await.until("the leader writes", () -> results(admin, ns) == 1);
        assertThat(a.isLeading() && b.isLeading()).as("never two leaders").isFalse();

        boolean aLeads = a.isLeading();
        AggregatorController follower = aLeads ? b : a;
        (aLeads ? clientA : clientB).close(); // the leader's process is gone
        Await.until("the other replica takes over", follower::isLeading, Duration.ofSeconds(60));

        publishFailure(publisher, "background", second, "require-labels");
        Await.until("the new leader writes", () -> results(admin, ns) == 2);
        var lease = admin.leases().inNamespace(ns).withName("tally-aggregator").get().getSpec();
        assertThat(lease.getHolderIdentity()).isEqualTo(aLeads ? "replica-b" : "replica-a");
        follower.desired().get(60, java.util.concurrent.TimeUnit.SECONDS);
      } finally {
        a.close();
        b.close();
      }
    }
    // read once the log holds the two writes expected and a marker made after them (a write made
    // twice, or late, is there too)
    java.util.function.Function<List<AuditLog.Event>, List<AuditLog.Event>> replicaWrites =
        events ->
            events.stream()
                .filter(e -> e.user().startsWith("system:serviceaccount:" + ns + ":replica-"))
                .filter(e -> e.resource().equals("policyreports") && e.namespace().equals(ns))
                .filter(e -> Set.of("create", "update", "patch", "delete").contains(e.verb()))
                .toList();
    var writes =
        replicaWrites.apply(
            RealServer.auditEventsOnceLogged(
                cluster, mark, events -> replicaWrites.apply(events).size() >= 2));
    assertThat(writes)
        .as("one create by the first leader, one update by the second, nothing twice: %s", writes)
        .extracting(AuditLog.Event::verb)
        .containsExactly("create", "update");
    assertThat(writes).allMatch(e -> e.code() / 100 == 2);
  }

  private static AggregatorController elected(KubernetesClient client, String ns, String id) {
    return controllerOn(client)
        .leaderElection(
            new LeaderElectionSettings(
                ns,
                "tally-aggregator",
                id,
                Duration.ofSeconds(4),
                Duration.ofSeconds(3),
                Duration.ofMillis(300)))
        .build()
        .start();
  }

  /**
   * API Priority and Fairness: producers whose requests fall into a priority level that rejects
   * rather than queues get real 429s (counted by the client as each reaches the budget). Their
   * process shares one adaptive budget, started far above what the level admits: the 429s reach it,
   * it halves its rate (once a second at most) and holds the callers for their Retry-After, Tally
   * retries, and every evaluation is written in the end.
   */
  @Test
  void aBurstUnderASmallPriorityLevelGetsReal429sTheBudgetBacksOffAndNothingIsLost(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    installRbac(admin);
    String ns = cluster.namespace();
    rejectingPriorityLevel(admin, ns);
    List<Subject> subjects = new ArrayList<>();
    for (int i = 0; i < 48; i++) {
      subjects.add(subject(admin, ns, "adaptive-" + i));
    }
    ApiBudget budget = ApiBudget.adaptive(2000, 4000, 64);
    List<Double> ratesAt429 = java.util.Collections.synchronizedList(new ArrayList<>());
    TallyMetrics metrics =
        new TallyMetrics() {
          @Override
          public void retry(int statusCode, Duration delay) {
            if (statusCode == 429) {
              ratesAt429.add(budget.qps());
            }
          }
        };
    List<PartialReportPublisher> publishers = new ArrayList<>();
    List<KubernetesClient> clients = new ArrayList<>();
    List<java.util.concurrent.CompletableFuture<Void>> writes = new ArrayList<>();
    try (AggregatorController controller = startedController(admin)) {
      for (int p = 0; p < 16; p++) {
        // as the aggregator program does: fabric8's own retries off, so each 429 reaches Tally
        KubernetesClient account = cluster.serviceAccount("adaptive-" + p, "tally-producer");
        KubernetesClient client =
            new io.fabric8.kubernetes.client.KubernetesClientBuilder()
                .withConfig(
                    new io.fabric8.kubernetes.client.ConfigBuilder(account.getConfiguration())
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build();
        clients.add(client);
        publishers.add(
            PartialReportPublisher.builder(client)
                .budget(budget)
                .metrics(metrics)
                .retryPolicy(
                    new RetryPolicy(
                        20, Duration.ofMillis(50), Duration.ofSeconds(2), Duration.ofSeconds(10)))
                .build());
      }
      // a burst of 48 writes over 16 clients; how many of them overlap depends on the machine,
      // so a burst is repeated (a new evaluation of every subject each time) until the server
      // rejected one of them, at most eight times
      for (int round = 0; round < 8 && ratesAt429.isEmpty(); round++) {
        for (int i = 0; i < subjects.size(); i++) {
          writes.add(
              publishers
                  .get(i % publishers.size())
                  .publish(
                      PartialReport.builder()
                          .producer("admission")
                          .subject(subjects.get(i))
                          .results(List.of(fail("require-labels")))
                          .observedAt(Timestamp.ofSeconds(1_700_000_000 + round))
                          .build()));
        }
        java.util.concurrent.CompletableFuture.allOf(
                writes.toArray(java.util.concurrent.CompletableFuture[]::new))
            .get(180, java.util.concurrent.TimeUnit.SECONDS);
      }
      Await.until("every evaluation is aggregated", () -> results(admin, ns) == subjects.size());
    } finally {
      publishers.forEach(PartialReportPublisher::close);
      clients.forEach(KubernetesClient::close);
    }
    if (!ratesAt429.isEmpty()) {
      // the audit log is written when the answer has been sent: it may trail the client
      Await.until("the 429s are in the audit log", () -> !rejected(cluster, ns).isEmpty());
    }
    List<String> producers = producerRequests(cluster, ns);
    long rejected = rejected(cluster, ns).size();
    assertThat(rejected)
        .as(
            "real 429s in the audit log, among %s requests such as %s",
            producers.size(), producers.isEmpty() ? "none" : producers.get(producers.size() - 1))
        .isPositive();
    assertThat(ratesAt429).as("real 429s reached the shared budget").isNotEmpty();
    // halved from 2000; other callers' answers may have raised it by 1/rate each (0.001) between
    // the halving and this callback's read
    assertThat(ratesAt429.get(0)).as("the first 429 halved its rate").isBetween(1000.0, 1001.0);
    assertThat(java.util.Collections.min(ratesAt429)).isLessThan(2000.0);
  }

  /** The audit log's lines of requests by the service accounts of {@code ns}. */
  private static List<String> producerRequests(RealKubernetes.Cluster cluster, String ns) {
    try {
      return java.nio.file.Files.readAllLines(cluster.env().auditLog()).stream()
          .filter(l -> l.contains("system:serviceaccount:" + ns + ":adaptive-"))
          .toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Those of them the server answered with 429. */
  private static List<String> rejected(RealKubernetes.Cluster cluster, String ns) {
    return producerRequests(cluster, ns).stream().filter(l -> l.contains("\"code\":429")).toList();
  }

  /**
   * A priority level of API Priority and Fairness with the least concurrency there is, which
   * rejects (429) rather than queues, for every service account of {@code ns}.
   */
  private static void rejectingPriorityLevel(KubernetesClient admin, String ns) {
    String level = ns + "-reject";
    admin
        .resource(
            Serialization.unmarshal(
                "apiVersion: flowcontrol.apiserver.k8s.io/v1\n"
                    + "kind: PriorityLevelConfiguration\n"
                    + "metadata: {name: "
                    + level
                    + "}\n"
                    + "spec:\n"
                    + "  type: Limited\n"
                    + "  limited:\n"
                    + "    nominalConcurrencyShares: 1\n"
                    + "    lendablePercent: 0\n"
                    + "    limitResponse: {type: Reject}\n",
                GenericKubernetesResource.class))
        .create();
    admin
        .resource(
            Serialization.unmarshal(
                "apiVersion: flowcontrol.apiserver.k8s.io/v1\n"
                    + "kind: FlowSchema\n"
                    + "metadata: {name: "
                    + level
                    + "}\n"
                    + "spec:\n"
                    + "  priorityLevelConfiguration: {name: "
                    + level
                    + "}\n"
                    + "  matchingPrecedence: 500\n"
                    + "  rules:\n"
                    + "  - subjects:\n"
                    + "    - kind: Group\n"
                    + "      group: {name: 'system:serviceaccounts:"
                    + ns
                    + "'}\n"
                    + "    resourceRules:\n"
                    + "    - verbs: ['*']\n"
                    + "      apiGroups: ['*']\n"
                    + "      resources: ['*']\n"
                    + "      namespaces: ['*']\n",
                GenericKubernetesResource.class))
        .create();
  }

  /**
   * The server-side apply write path on a real server: Tally applies as field manager {@code
   * tally}; another manager that applies a value Tally owns without forcing gets a 409 conflict
   * naming Tally; one that forces takes the field, and Tally's next write of that report (it forces
   * too) takes it back. Between the two the other manager's value stands: Tally rewrites a report
   * only when its own content changes.
   */
  @Test
  void serverSideApplyOwnsTheFieldsItWritesAndTakesThemBackOnTheNextWrite(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    Subject first = subject(admin, ns, "first");
    Subject second = subject(admin, ns, "second");
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build();
        AggregatorController controller =
            controllerOn(admin).serverSideApply(true).build().start()) {
      publishFailure(publisher, "background", first, "require-labels");
      Await.until("the aggregate is applied", () -> results(admin, ns) == 1);
      PolicyReportResource written =
          admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems().get(0);
      assertThat(written.getMetadata().getManagedFields())
          .extracting(f -> f.getManager())
          .contains(WireNames.FIELD_MANAGER);

      String name = written.getMetadata().getName();
      String tampered =
          "apiVersion: wgpolicyk8s.io/v1alpha2\nkind: PolicyReport\nmetadata: {name: "
              + name
              + ", namespace: "
              + ns
              + "}\nsummary: {fail: 99}\n";
      var conflict =
          catchThrowableOfType(
              () ->
                  admin
                      .resource(Serialization.unmarshal(tampered, GenericKubernetesResource.class))
                      .fieldManager("someone-else")
                      .serverSideApply(),
              KubernetesClientException.class);
      assertThat(conflict.getCode()).isEqualTo(409);
      assertThat(conflict.getMessage()).contains(WireNames.FIELD_MANAGER);

      admin
          .resource(Serialization.unmarshal(tampered, GenericKubernetesResource.class))
          .fieldManager("someone-else")
          .forceConflicts()
          .serverSideApply();
      assertThat(summaryFail(admin, ns, name)).isEqualTo(99);

      publishFailure(publisher, "background", second, "require-labels");
      Await.until(
          "Tally's next write takes the summary back", () -> summaryFail(admin, ns, name) == 2);
    }
  }

  private static long summaryFail(KubernetesClient admin, String ns, String name) {
    return ReportCodec.decode(
            admin.resources(PolicyReportResource.class).inNamespace(ns).withName(name).get())
        .summary()
        .fail();
  }

  private static PartialReport partial(String namespace, int i) {
    Subject subject =
        namespace.isEmpty()
            ? Subject.of("v1", "Namespace", "", "ns-" + i, "uid-ns-" + i)
            : Subject.of("v1", "Pod", namespace, "pod-" + i, "uid-pod-" + namespace + "-" + i);
    List<Result> results = new ArrayList<>();
    for (int p = 0; p < 8; p++) {
      results.add(
          Result.builder()
              .source("kyverno")
              .policy("policy-" + p)
              .rule("rule")
              .status(ResultStatus.values()[(i + p) % ResultStatus.values().length])
              .message("message € \u0001 \"quoted\" " + "x".repeat(120))
              .properties(java.util.Map.of("index", Integer.toString(i)))
              .timestamp(Timestamp.ofSeconds(1_700_000_000))
              .build());
    }
    return PartialReport.builder()
        .producer("background")
        .subject(subject)
        .results(results)
        .observedAt(Timestamp.ofSeconds(1_700_000_000 + i))
        .coverage(Set.of())
        .build();
  }
}
