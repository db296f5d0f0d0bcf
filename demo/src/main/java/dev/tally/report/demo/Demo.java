package dev.tally.report.demo;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportLimits;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.ApiBudget;
import dev.tally.report.fabric8.PartialReportPublisher;
import dev.tally.report.fabric8.TallyMetrics;
import dev.tally.report.fabric8.TallyResources;
import dev.tally.report.fabric8.WriteVerb;
import dev.tally.report.fabric8.resource.ClusterPolicyReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.KubeTestEnv;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Tally end to end: producers write partial reports about a generated cluster with churn, the
 * aggregator turns them into PolicyReports, and the demo prints them like {@code kubectl get polr
 * -A} with the API requests each side made. It runs on the repository's real control plane
 * (kube-testenv) when Go is on the PATH, and on fabric8's in-process mock API server otherwise or
 * with {@code --mock}.
 */
public final class Demo {
  private static final List<String> POLICIES =
      List.of(
          "require-labels",
          "disallow-latest-tag",
          "require-requests-limits",
          "disallow-privileged",
          "restrict-host-path",
          "require-probes");
  private static final String REMOVED_POLICY = "require-probes";

  private final PrintStream out;
  private final boolean terminal;
  private volatile long started = System.nanoTime();
  private final Random random = new Random(42);
  private final int namespaces;
  private final int podsPerNamespace;
  private final Map<String, LongAdder> tallyWrites = new ConcurrentHashMap<>();
  private volatile String phase = "starting";
  private long tick = 1_700_000_000L;

  /** A demo printing to {@code out}, which is not a terminal: one line per phase. */
  Demo(PrintStream out, int namespaces, int podsPerNamespace) {
    this(out, false, namespaces, podsPerNamespace);
  }

  /**
   * A demo printing to {@code out}; on a {@code terminal} one progress line is redrawn in place,
   * elsewhere (a file, a CI log) each phase gets a line of its own.
   */
  Demo(PrintStream out, boolean terminal, int namespaces, int podsPerNamespace) {
    this.out = out;
    this.terminal = terminal;
    this.namespaces = namespaces;
    this.podsPerNamespace = podsPerNamespace;
  }

  public static void main(String[] args) {
    int status = 0;
    try (DemoCluster cluster = cluster(List.of(args).contains("--mock"))) {
      new Demo(System.out, System.console() != null, 6, 40).run(cluster);
    } catch (Exception e) {
      System.out.println();
      e.printStackTrace();
      status = 1;
    }
    System.exit(status); // the mock server's and the clients' threads are not daemons
  }

  /** The real control plane when it can run here (and is not refused), the mock otherwise. */
  private static DemoCluster cluster(boolean mock) {
    if (mock) {
      return DemoCluster.mock("--mock");
    }
    String why = KubeTestEnv.unavailableBecause();
    if (why != null) {
      System.out.println("No real control plane: " + why + ".");
      return DemoCluster.mock("no real control plane: Go is needed to build one");
    }
    System.out.println(
        "Starting a real Kubernetes control plane (kube-testenv; the first build on a machine"
            + " takes about 13 minutes, later starts about 10 s) ...");
    return DemoCluster.real(KubeTestEnv.shared());
  }

  /**
   * The demo, phase by phase; what each phase does is the phase's method. The progress line shows
   * the phase running.
   */
  void run(DemoCluster cluster) throws Exception {
    out.println("Tally demo " + cluster.describe());
    started = System.nanoTime();
    var aggregatorRequests = new RequestCounter();
    var producerRequests = new RequestCounter();
    KubernetesClient aggregatorClient = cluster.client(aggregatorRequests);
    KubernetesClient producerClient = cluster.client(producerRequests);
    KubernetesClient admin = cluster.client(new RequestCounter());
    ScheduledExecutorService progress =
        terminal ? showProgress(started, aggregatorRequests, producerRequests) : null;

    phase("installing CRDs");
    installCrds(admin, cluster.hasReportCrds());
    ApiBudget budget = ApiBudget.of(2000, 200);
    AggregatorController controller = startAggregator(aggregatorClient, budget);
    PartialReportPublisher admission =
        PartialReportPublisher.builder(producerClient).budget(budget).build();

    List<Subject> pods = createPods(cluster, admin, admission);
    PartialReportPublisher background = scanInBackground(producerClient, budget, pods);
    List<Subject> deleted = churn(cluster, admin, admission, background, pods);
    removePolicy(controller);
    phase("waiting for the aggregates to converge");
    awaitConverged(controller, admin);
    long steadyWrites = steadyState(controller, background, pods, aggregatorRequests);

    String done = "done in " + (System.nanoTime() - started) / 1_000_000 + " ms";
    if (progress != null) {
      progress.shutdownNow();
      progress.awaitTermination(1, TimeUnit.SECONDS);
      out.printf("\r%-110s%n", done);
    } else {
      out.println(done);
    }
    printSummary(admin, pods, deleted, aggregatorRequests, producerRequests, steadyWrites);

    background.close();
    admission.close();
    controller.close();
    aggregatorClient.close();
    producerClient.close();
    admin.close();
  }

  /** The phase now running; off a terminal it gets a line of its own, with the time. */
  private void phase(String next) {
    phase = next;
    if (!terminal) {
      out.printf("%5.1fs  %s%n", (System.nanoTime() - started) / 1e9, next);
    }
  }

  /**
   * On a terminal, rewrites one progress line every 100 ms: the time, the phase and each side's
   * requests.
   */
  private ScheduledExecutorService showProgress(
      long started, RequestCounter aggregatorRequests, RequestCounter producerRequests) {
    ScheduledExecutorService progress =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "progress");
              t.setDaemon(true);
              return t;
            });
    progress.scheduleAtFixedRate(
        () ->
            out.printf(
                "\r%5.1fs  %-50s  aggregator %4d requests  producers %5d requests ",
                (System.nanoTime() - started) / 1e9,
                phase,
                aggregatorRequests.total(),
                producerRequests.total()),
        0,
        100,
        TimeUnit.MILLISECONDS);
    return progress;
  }

  /** The aggregator, per namespace, 250 results a partition, counting Tally's writes by verb. */
  private AggregatorController startAggregator(KubernetesClient client, ApiBudget budget) {
    TallyMetrics metrics =
        new TallyMetrics() {
          @Override
          public void write(WriteVerb verb, dev.tally.report.api.ReportRef ref) {
            tallyWrites.computeIfAbsent(verb.metricName(), v -> new LongAdder()).increment();
          }
        };
    return AggregatorController.builder(client)
        .aggregator(
            () ->
                ReportAggregator.builder()
                    .grouping(Grouping.perNamespace())
                    .limits(ReportLimits.defaults().withMaxResults(250))
                    .build())
        .budget(budget)
        .metrics(metrics)
        .flushWindow(Duration.ofSeconds(1))
        .build()
        .start();
  }

  /**
   * Creates: pods appear; admission evaluates a quarter of them before they exist (CREATE), then
   * adopts those reports. Returns the pods.
   */
  private List<Subject> createPods(
      DemoCluster cluster, KubernetesClient admin, PartialReportPublisher admission)
      throws Exception {
    phase("creating pods, admission evaluates them");
    List<Subject> pods = new ArrayList<>();
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (int n = 0; n < namespaces; n++) {
      String ns = "team-" + n;
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
      if (cluster.runsControllers()) {
        awaitDefaultServiceAccount(admin, ns);
      }
      int count = podsPerNamespace * (n + 1) / 3 + 5;
      for (int p = 0; p < count; p++) {
        Subject unborn = Subject.of("v1", "Pod", ns, "app-" + p, "");
        if (p % 4 == 0) {
          writes.add(admission.publish(evaluate("admission", unborn)));
        }
        Pod pod = createPod(admin, ns, "app-" + p);
        Subject subject = unborn.withUid(pod.getMetadata().getUid());
        pods.add(subject);
        if (p % 4 != 0) {
          writes.add(admission.publish(evaluate("admission", subject)));
        }
      }
    }
    await(writes);
    phase("adopting reports written before their pod existed");
    admission.adoptPending();
    return pods;
  }

  /** A background scan evaluates every pod; returns its publisher. */
  private PartialReportPublisher scanInBackground(
      KubernetesClient producerClient, ApiBudget budget, List<Subject> pods) throws Exception {
    phase("background scan of " + pods.size() + " pods");
    PartialReportPublisher background =
        PartialReportPublisher.builder(producerClient).budget(budget).build();
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (Subject pod : pods) {
      writes.add(background.publish(evaluate("background", pod)));
    }
    await(writes);
    return background;
  }

  /**
   * Churn: every ninth pod is deleted (and its reports with it), new pods appear in every other
   * namespace, a fifth of the pods are scanned again. Updates {@code pods}; returns the deleted.
   */
  private List<Subject> churn(
      DemoCluster cluster,
      KubernetesClient admin,
      PartialReportPublisher admission,
      PartialReportPublisher background,
      List<Subject> pods)
      throws Exception {
    phase("churn: pods deleted, created, changed");
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    List<Subject> deleted = new ArrayList<>();
    for (int i = 0; i < pods.size(); i += 9) {
      deleted.add(pods.get(i));
    }
    for (Subject gone : deleted) {
      admin.pods().inNamespace(gone.namespace()).withName(gone.name()).delete();
      if (!cluster.runsControllers()) {
        // what the garbage collector would do: remove the partial reports the pod owned
        admin
            .resources(PartialReportResource.class)
            .inNamespace(gone.namespace())
            .withLabel(WireNames.SUBJECT_UID_LABEL, gone.uid())
            .delete();
      }
    }
    if (cluster.runsControllers()) {
      phase("the garbage collector removes the deleted pods' reports");
      for (Subject gone : deleted) {
        awaitCollected(admin, gone);
      }
    }
    pods.removeAll(deleted);
    for (int n = 0; n < namespaces; n += 2) {
      for (int p = 0; p < 5; p++) {
        Pod pod = createPod(admin, "team-" + n, "new-" + p);
        Subject subject =
            Subject.of("v1", "Pod", "team-" + n, "new-" + p, pod.getMetadata().getUid());
        pods.add(subject);
        writes.add(admission.publish(evaluate("admission", subject)));
      }
    }
    for (int i = 1; i < pods.size(); i += 5) {
      writes.add(background.publish(evaluate("background", pods.get(i))));
    }
    await(writes);
    return deleted;
  }

  /** A policy is removed: the aggregator is told which are live. */
  private void removePolicy(AggregatorController controller) throws Exception {
    phase("policy " + REMOVED_POLICY + " removed");
    Set<CoverageKey> live = new HashSet<>();
    for (String policy : POLICIES) {
      if (!policy.equals(REMOVED_POLICY)) {
        live.add(CoverageKey.of("kyverno", policy));
      }
    }
    controller.setLiveness(Liveness.only(live)).get(60, TimeUnit.SECONDS);
  }

  /**
   * Steady state: a tenth of the pods' last evaluations are published again, then a flush and a
   * resync. Returns the aggregator's writes meanwhile, which should be none.
   */
  private long steadyState(
      AggregatorController controller,
      PartialReportPublisher background,
      List<Subject> pods,
      RequestCounter aggregatorRequests)
      throws Exception {
    long writesBefore = aggregatorRequests.writes();
    phase("steady state: same evaluations again, resync");
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (int i = 0; i < pods.size(); i += 10) {
      Subject pod = pods.get(i);
      PartialReport last = lastEvaluations.get("background/" + pod.uid());
      if (last != null) {
        writes.add(background.publish(last));
      }
    }
    await(writes);
    controller.flushNow().get(60, TimeUnit.SECONDS);
    controller.resyncNow().get(60, TimeUnit.SECONDS);
    return aggregatorRequests.writes() - writesBefore;
  }

  /** The reports as {@code kubectl get polr -A} shows them, then the requests each side made. */
  private void printSummary(
      KubernetesClient admin,
      List<Subject> pods,
      List<Subject> deleted,
      RequestCounter aggregatorRequests,
      RequestCounter producerRequests,
      long steadyWrites) {
    out.println();
    printReports(admin);
    out.println();
    out.printf(
        "%d pods in %d namespaces, %d deleted, %d policies (%s removed)%n",
        pods.size(), namespaces, deleted.size(), POLICIES.size(), REMOVED_POLICY);
    out.println();
    out.println("API requests by verb");
    printRequests("aggregator", aggregatorRequests.snapshot());
    printRequests("producers", producerRequests.snapshot());
    out.printf("%-12s %s%n", "tally writes", new TreeMap<>(snapshot(tallyWrites)));
    out.printf(
        "steady state: %d writes after the same evaluations were published again%n", steadyWrites);
  }

  private final Map<String, PartialReport> lastEvaluations = new HashMap<>();

  private PartialReport evaluate(String producer, Subject pod) {
    tick++;
    List<Result> results = new ArrayList<>();
    Set<CoverageKey> coverage = new HashSet<>();
    for (String policy : POLICIES) {
      coverage.add(CoverageKey.of("kyverno", policy));
      int roll = random.nextInt(20);
      ResultStatus status =
          roll == 0
              ? ResultStatus.ERROR
              : roll < 3
                  ? ResultStatus.FAIL
                  : roll < 5
                      ? ResultStatus.WARN
                      : roll == 5 ? ResultStatus.SKIP : ResultStatus.PASS;
      results.add(
          Result.builder()
              .source("kyverno")
              .policy(policy)
              .rule("check-" + policy)
              .status(status)
              .severity(Severity.MEDIUM)
              .category("Pod Security")
              .message(status == ResultStatus.PASS ? "rule passed" : "validation failed: " + policy)
              .resource(pod)
              .build());
    }
    var e = new PartialReport(producer, pod, "", coverage, results, new Timestamp(tick, 0), 0);
    if (!pod.uid().isEmpty()) {
      lastEvaluations.put(producer + "/" + pod.uid(), e);
    }
    return e;
  }

  private void awaitConverged(AggregatorController controller, KubernetesClient admin)
      throws Exception {
    for (int i = 0; i < 600; i++) {
      controller.flushNow().get(60, TimeUnit.SECONDS);
      List<AggregateReport> desired = controller.desired().get(60, TimeUnit.SECONDS);
      if (!desired.isEmpty() && desired.equals(observed(admin))) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new IllegalStateException("the aggregates did not converge");
  }

  private static List<AggregateReport> observed(KubernetesClient client) {
    List<AggregateReport> out = new ArrayList<>();
    for (var r :
        client
            .resources(PolicyReportResource.class)
            .inAnyNamespace()
            .withLabel(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_VALUE)
            .list()
            .getItems()) {
      out.add(ReportCodec.decode(r));
    }
    for (var r :
        client
            .resources(ClusterPolicyReportResource.class)
            .withLabel(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_VALUE)
            .list()
            .getItems()) {
      out.add(ReportCodec.decode(r));
    }
    out.sort(Comparator.comparing(AggregateReport::ref));
    return out;
  }

  private void printReports(KubernetesClient client) {
    out.printf(
        "%-10s %-32s %-8s %5s %5s %5s %5s %5s%n",
        "NAMESPACE", "NAME", "SCOPE", "PASS", "FAIL", "WARN", "ERROR", "SKIP");
    for (AggregateReport r : observed(client)) {
      out.printf(
          "%-10s %-32s %-8s %5d %5d %5d %5d %5d%n",
          r.ref().namespace().isEmpty() ? "(cluster)" : r.ref().namespace(),
          r.ref().name(),
          r.scope().map(s -> s.kind() + "/" + s.name()).orElse("-"),
          r.summary().pass(),
          r.summary().fail(),
          r.summary().warn(),
          r.summary().error(),
          r.summary().skip());
    }
  }

  private void printRequests(String who, Map<String, Long> byVerb) {
    long total = byVerb.values().stream().mapToLong(Long::longValue).sum();
    out.printf("%-12s %5d  %s%n", who, total, byVerb);
  }

  private static Map<String, Long> snapshot(Map<String, LongAdder> counters) {
    Map<String, Long> out = new TreeMap<>();
    counters.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  private static Pod createPod(KubernetesClient client, String namespace, String name) {
    return client
        .pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  /** Waits until the namespace's {@code default} ServiceAccount exists: pods need it. */
  private static void awaitDefaultServiceAccount(KubernetesClient client, String ns)
      throws InterruptedException {
    for (int i = 0; i < 600; i++) {
      if (client.serviceAccounts().inNamespace(ns).withName("default").get() != null) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new IllegalStateException("no default ServiceAccount in " + ns + " after 30 s");
  }

  /** Waits until the garbage collector has removed the partial reports {@code gone} owned. */
  private static void awaitCollected(KubernetesClient client, Subject gone)
      throws InterruptedException {
    for (int i = 0; i < 1200; i++) {
      if (client
          .resources(PartialReportResource.class)
          .inNamespace(gone.namespace())
          .withLabel(WireNames.SUBJECT_UID_LABEL, gone.uid())
          .list()
          .getItems()
          .isEmpty()) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new IllegalStateException("the garbage collector left " + gone.display() + "'s reports");
  }

  /**
   * Tally's CRDs from the jar, and, unless the cluster has the official ones, permissive
   * wgpolicyk8s.io kinds for it to write.
   */
  private static void installCrds(KubernetesClient client, boolean hasReportCrds) {
    TallyResources.installCrds(client);
    if (hasReportCrds) {
      return;
    }
    for (String[] kind :
        new String[][] {
          {"PolicyReport", "policyreports", "Namespaced", "polr"},
          {"ClusterPolicyReport", "clusterpolicyreports", "Cluster", "cpolr"}
        }) {
      client
          .resource(
              new CustomResourceDefinitionBuilder()
                  .withNewMetadata()
                  .withName(kind[1] + ".wgpolicyk8s.io")
                  .endMetadata()
                  .withNewSpec()
                  .withGroup("wgpolicyk8s.io")
                  .withScope(kind[2])
                  .withNewNames()
                  .withKind(kind[0])
                  .withPlural(kind[1])
                  .withShortNames(kind[3])
                  .endNames()
                  .addNewVersion()
                  .withName("v1alpha2")
                  .withServed(true)
                  .withStorage(true)
                  .withNewSchema()
                  .withNewOpenAPIV3Schema()
                  .withType("object")
                  .withXKubernetesPreserveUnknownFields(true)
                  .endOpenAPIV3Schema()
                  .endSchema()
                  .endVersion()
                  .endSpec()
                  .build())
          .create();
    }
  }

  private static void await(List<CompletableFuture<Void>> writes) throws Exception {
    CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
  }
}
