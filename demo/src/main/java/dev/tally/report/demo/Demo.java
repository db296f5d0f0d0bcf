package dev.tally.report.demo;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.testenv.KubeTestEnv;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 *
 * <p>The demo is split along its chapters: {@link DemoSetup} (CRDs, the aggregator starts), {@link
 * PodChapters} (pods created and evaluated, a background scan, churn), the aggregator's chapters
 * here (a policy removed, convergence, the steady state), and {@link DemoSummary} (what it prints
 * at the end); {@link Evaluations} is what the producers evaluate with. This class runs them in
 * order and shows the phase running.
 */
public final class Demo {
  private final PrintStream out;
  private final boolean terminal;
  private volatile long started = System.nanoTime();
  private final int namespaces;
  private final int podsPerNamespace;
  private final Map<String, LongAdder> tallyWrites = new ConcurrentHashMap<>();
  private volatile String phase = "starting";
  private final Evaluations evaluations = new Evaluations();

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
   * The demo, phase by phase; what each phase does is the phase's method, here or in its chapter's
   * class. The progress line shows the phase running.
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
    DemoSetup.installCrds(admin, cluster.hasReportCrds());
    ApiBudget budget = ApiBudget.of(2000, 200);
    AggregatorController controller =
        DemoSetup.startAggregator(aggregatorClient, budget, tallyWrites);
    PartialReportPublisher admission =
        PartialReportPublisher.builder(producerClient).budget(budget).build();

    var podChapters =
        new PodChapters(cluster, admin, evaluations, this::phase, namespaces, podsPerNamespace);
    List<Subject> pods = podChapters.createPods(admission);
    PartialReportPublisher background = podChapters.scanInBackground(producerClient, budget, pods);
    List<Subject> deleted = podChapters.churn(admission, background, pods);
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
    new DemoSummary(out)
        .print(
            admin,
            pods,
            namespaces,
            deleted,
            aggregatorRequests,
            producerRequests,
            tallyWrites,
            steadyWrites);

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

  /** A policy is removed: the aggregator is told which are live. */
  private void removePolicy(AggregatorController controller) throws Exception {
    phase("policy " + Evaluations.REMOVED_POLICY + " removed");
    controller.setLiveness(Liveness.only(Evaluations.livePolicies())).get(60, TimeUnit.SECONDS);
  }

  /** Flushes until the reports in the cluster are the aggregator's (600 tries, 50 ms apart). */
  private void awaitConverged(AggregatorController controller, KubernetesClient admin)
      throws Exception {
    for (int i = 0; i < 600; i++) {
      controller.flushNow().get(60, TimeUnit.SECONDS);
      List<AggregateReport> desired = controller.desired().get(60, TimeUnit.SECONDS);
      if (!desired.isEmpty() && desired.equals(DemoSummary.observed(admin))) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new IllegalStateException("the aggregates did not converge");
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
      PartialReport last = evaluations.last("background", pods.get(i));
      if (last != null) {
        writes.add(background.publish(last));
      }
    }
    PodChapters.await(writes);
    controller.flushNow().get(60, TimeUnit.SECONDS);
    controller.resyncNow().get(60, TimeUnit.SECONDS);
    return aggregatorRequests.writes() - writesBefore;
  }
}
