package dev.tally.aggregator.hostile;

import dev.tally.aggregator.JarProcess;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Result;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * One run of the harness against one input: the aggregator jar started as the chart starts it (its
 * JVM options, a heap limit) as a ServiceAccount bound to the input's shipped roles; a tenant
 * running {@link Plan}'s steps; the victim changing and evaluating its Pods. The run's contract,
 * checked throughout:
 *
 * <ul>
 *   <li>after each change of the victim, its reports equal the model's within the staleness bound
 *       (a bounded poll: {@link Await});
 *   <li>{@code /healthz} answers 200 within the probe timeout (5 s) every time it is probed (every
 *       second);
 *   <li>the process's RSS ({@code /proc/<pid>/status} VmRSS, sampled every second) stays under the
 *       limit, and the process never exits.
 * </ul>
 *
 * The first breach ends the run and is its failure, with the step the tenant had reached.
 */
final class HostileRun {
  /** The jar's process-wide (and per-namespace) cap of results in a run. */
  static final long MAX_RESULTS = 6_000;

  /** The jar's process-wide (and per-namespace) cap of bytes of results in a run. */
  static final long MAX_RESULT_BYTES = 2_000_000;

  static final String TENANT_ROLE = "tally-hostile-tenant";

  /** What a run is given. */
  record Settings(
      long seed,
      Dialect input,
      Duration duration,
      Duration pace,
      Duration stalenessBound,
      long rssLimitKiB,
      String heap,
      long maxRequests) {}

  /** What a run found: its figures, and its failure if it had one. */
  record Outcome(
      Settings settings,
      Plan plan,
      List<Plan.Step> executed,
      @Nullable String failure,
      int failedAtStep,
      Figures figures) {
    boolean failed() {
      return failure != null;
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final AtomicInteger RUNS = new AtomicInteger();

  /** How long a probe waits for its answer. */
  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

  private static final HttpClient PROBE =
      HttpClient.newBuilder().connectTimeout(PROBE_TIMEOUT).build();

  private final RealKubernetes.Cluster cluster;
  private final Settings settings;
  private final Plan plan;
  private final AtomicReference<String> failure = new AtomicReference<>();
  private final AtomicInteger failedAtStep = new AtomicInteger(-1);
  private final List<Plan.Step> executed = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger probes = new AtomicInteger();
  private final AtomicInteger probeFailures = new AtomicInteger();
  private final AtomicLong peakRss = new AtomicLong();
  private final AtomicLong peakLog = new AtomicLong();

  /**
   * What the aggregator may log in a run: a base, and an allowance per tenant request (a rejection
   * is one WARN line of a few hundred bytes). A refusal logged at every retry, or with a stack
   * trace per attempt, outgrows it.
   */
  static final long LOG_BASE_BYTES = 256 * 1024;

  static final long LOG_BYTES_PER_REQUEST = 1024;

  /**
   * What the results of the aggregator's reports in the tenant's namespace may weigh as JSON: its
   * cap of result bytes ({@link #MAX_RESULT_BYTES}), as the aggregator counts them, and half as
   * much again for what the reports' JSON adds to each result.
   */
  static final long TENANT_REPORT_BYTES = MAX_RESULT_BYTES * 3 / 2 + 256 * 1024;

  /** Whether the last sample of the tenant's report bytes was over {@link #TENANT_REPORT_BYTES}. */
  private volatile boolean tenantOver;

  private volatile int lastStep = -1;

  private HostileRun(RealKubernetes.Cluster cluster, Settings settings, Plan plan) {
    this.cluster = cluster;
    this.settings = settings;
    this.plan = plan;
  }

  static Outcome run(RealKubernetes.Cluster cluster, Settings settings, Plan plan)
      throws Exception {
    return new HostileRun(cluster, settings, plan).run();
  }

  private void fail(String why) {
    if (failure.compareAndSet(null, why)) {
      failedAtStep.set(lastStep);
    }
  }

  private Outcome run() throws Exception {
    int n = RUNS.incrementAndGet();
    KubernetesClient admin = cluster.admin();
    Dialect input = settings.input();
    input.install(admin);
    installTenantRole(admin);
    awaitReportsServed(admin);
    String tenantNs = cluster.otherNamespace("t" + n);
    String victimNs = cluster.otherNamespace("v" + n);
    // the Lease of each run in a namespace of its own: a run's Lease is never released (its
    // process is killed), and the shipped Lease role names one Lease
    String leaseNs = cluster.otherNamespace("l" + n);
    KubernetesClient tenantClient = cluster.tenant("tenant", tenantNs, TENANT_ROLE);
    // the tenant's second namespace, which it has the platform delete (terminating-namespace)
    String leavingNs = cluster.otherNamespace("g" + n);
    KubernetesClient leavingClient = cluster.tenant("tenant", leavingNs, TENANT_ROLE);
    KubernetesClient producer = cluster.tenant("producer", victimNs, TENANT_ROLE);
    int port = freePort();
    List<String> args = releaseArgs(input, "aggregator-" + n, leaseNs, "hostile-" + n, port);
    // its log as a pipeline reads it: each line one JSON object, whatever the tenant wrote
    args.add("--log-format=json");
    // the process-wide caps scaled down, each as large as a namespace's, so that one tenant
    // namespace fills them within a run (fill-caps); the victim stays within its share of them
    args.addAll(
        List.of(
            "--max-results",
            Long.toString(MAX_RESULTS),
            "--max-results-per-namespace",
            Long.toString(MAX_RESULTS),
            "--max-result-bytes",
            Long.toString(MAX_RESULT_BYTES),
            "--max-result-bytes-per-namespace",
            Long.toString(MAX_RESULT_BYTES)));
    // the chart's JVM options, with the heap its memory limit gives (MaxRAMPercentage=75 of it)
    List<String> jvm =
        List.of("-Xmx" + settings.heap(), "-XX:+ExitOnOutOfMemoryError", "-XX:TieredStopAtLevel=1");
    // another release beside it, of another input, as a cluster running Tally for two engines
    // does: same format, same grouping, its own Lease; it must leave this release's reports alone
    Dialect neighbour = input.neighbour();
    neighbour.install(admin);
    int neighbourPort = freePort();
    List<String> neighbourArgs =
        releaseArgs(neighbour, "neighbour-" + n, leaseNs, "neighbour-" + n, neighbourPort);
    List<String> neighbourJvm =
        List.of("-Xmx256m", "-XX:+ExitOnOutOfMemoryError", "-XX:TieredStopAtLevel=1");
    Victim victim =
        new Victim(
            admin,
            producer,
            victimNs,
            input,
            new SplittableRandom(settings.seed() ^ 0x5DEECE66DL),
            Victim.baseSeconds());
    List<Long> staleness = new ArrayList<>();
    Map<String, String> reportUids = Map.of();
    int changes = 0;
    long started = System.nanoTime();
    ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    ScheduledExecutorService attacker = Executors.newSingleThreadScheduledExecutor();
    int restarts = 0;
    // started once the victim has reports: a release's start lists every report it might own
    AtomicReference<JarProcess> beside = new AtomicReference<>();
    try (JarProcess jar =
            JarProcess.start(
                "hostile-" + input.flag + "-" + n, port, jvm, args.toArray(String[]::new));
        Tenant tenant =
            new Tenant(
                tenantClient,
                tenantNs,
                victimNs,
                input,
                port,
                victim::subjects,
                settings.maxRequests(),
                new Tenant.Leaving(
                    leavingClient,
                    leavingNs,
                    () -> admin.namespaces().withName(leavingNs).delete()))) {
      Await.until(
          "the aggregator is ready (" + input.flag + ")",
          () -> {
            if (!jar.process.isAlive()) {
              throw new AssertionError(
                  "the aggregator exited before it was ready\n" + jar.output());
            }
            return probe(port, "/readyz") == 200;
          },
          Duration.ofSeconds(180));
      long pid = jar.process.pid();
      sampler.scheduleWithFixedDelay(
          () -> {
            sample(jar, port, pid, tenant);
            JarProcess b = beside.get();
            if (b != null && !b.process.isAlive()) {
              fail("the neighbour release exited (" + b.process.exitValue() + ")");
            }
          },
          0,
          1,
          TimeUnit.SECONDS);
      AtomicInteger next = new AtomicInteger();
      attacker.scheduleWithFixedDelay(
          () -> attack(tenant, next),
          settings.pace().toMillis(),
          settings.pace().toMillis(),
          TimeUnit.MILLISECONDS);

      long deadline = started + settings.duration().toNanos();
      while (System.nanoTime() < deadline && failure.get() == null) {
        String what;
        try {
          what = victim.change();
        } catch (RuntimeException e) {
          fail("the victim's change failed: " + e);
          break;
        }
        changes++;
        long t0 = System.nanoTime();
        AtomicInteger polls = new AtomicInteger();
        AtomicReference<Map<String, List<Result>>> last = new AtomicReference<>();
        try {
          Await.until(
              "the victim's reports equal the model after: " + what,
              () -> {
                if (failure.get() != null) {
                  return true;
                }
                // one LIST every tenth poll (100 ms), not every 10 ms
                if (polls.getAndIncrement() % 10 != 0) {
                  return false;
                }
                Map<String, List<Result>> now = victim.actual();
                last.set(now);
                // and nothing merged is left behind to fill etcd (Kyverno's EphemeralReports)
                return now.equals(victim.expected()) && victim.intermediatesLeft() == 0;
              },
              settings.stalenessBound());
        } catch (AssertionError e) {
          fail(
              "the victim's reports did not equal the model within "
                  + settings.stalenessBound().toSeconds()
                  + " s after: "
                  + what
                  + " (the victim's intermediate reports left: "
                  + intermediatesLeft(victim)
                  + ")"
                  + "\n  model:   "
                  + victim.expected()
                  + "\n  cluster: "
                  + last.get());
          break;
        }
        if (failure.get() == null) {
          staleness.add((System.nanoTime() - t0) / 1_000_000);
          // no report the victim still has was deleted and written again since the last change:
          // results lost for a while, whoever deleted them (another release, a wrong orphan)
          Map<String, String> uids = victim.listedUids();
          for (Map.Entry<String, String> e : uids.entrySet()) {
            String before = reportUids.get(e.getKey());
            if (before != null && !before.equals(e.getValue())) {
              fail(
                  "the victim's report "
                      + e.getKey()
                      + " was deleted and written again (uid "
                      + before
                      + " then "
                      + e.getValue()
                      + ") by the time of: "
                      + what
                      + "; its results were missing for a while");
            }
          }
          reportUids = uids;
          if (beside.get() == null && !uids.isEmpty()) {
            JarProcess b =
                JarProcess.start(
                    "neighbour-" + neighbour.flag + "-" + n,
                    neighbourPort,
                    neighbourJvm,
                    neighbourArgs.toArray(String[]::new));
            beside.set(b);
            try {
              Await.until(
                  "the neighbour release is ready (" + neighbour.flag + ")",
                  () -> {
                    if (!b.process.isAlive()) {
                      throw new AssertionError(
                          "the neighbour release exited before it was ready\n" + b.output());
                    }
                    return failure.get() != null || probe(neighbourPort, "/readyz") == 200;
                  },
                  Duration.ofSeconds(180));
            } catch (AssertionError e) {
              fail(e.getMessage());
              break;
            }
          }
        }
      }
      attacker.shutdownNow();
      sampler.shutdownNow();
      attacker.awaitTermination(120, TimeUnit.SECONDS);
      sampler.awaitTermination(30, TimeUnit.SECONDS);
      if (!jar.process.isAlive()) {
        restarts = 1;
        fail("the aggregator exited (" + jar.process.exitValue() + ")");
      }
      System.out.println(
          "hostile-tenant: the aggregator logged "
              + jar.logBytes() / 1024
              + " KiB (budget "
              + (LOG_BASE_BYTES + LOG_BYTES_PER_REQUEST * tenant.requests()) / 1024
              + " KiB)");
      String notJson = firstLineNotJson(jar.stderr());
      if (notJson != null) {
        fail(
            "a line of the aggregator's log (--log-format json) is not one JSON object of time,"
                + " level, logger and message: "
                + InvalidReportException.printable(notJson, 400));
      }
      if (failure.get() != null) {
        System.err.println(
            "hostile-tenant: the aggregator's log of the failed run: "
                + Path.of("target", "jar-runs", "hostile-" + input.flag + "-" + n + ".err")
                    .toAbsolutePath());
      }
      Map<String, Integer> stepsByKind = new TreeMap<>();
      synchronized (executed) {
        executed.forEach(s -> stepsByKind.merge(s.kind().name(), 1, Integer::sum));
      }
      Figures figures =
          new Figures(
              input,
              settings.seed(),
              (System.nanoTime() - started) / 1_000_000,
              changes,
              List.copyOf(staleness),
              probes.get(),
              probeFailures.get(),
              peakRss.get(),
              settings.rssLimitKiB(),
              restarts,
              tenant.requests(),
              stepsByKind,
              tenant.answers());
      return new Outcome(
          settings, plan, List.copyOf(executed), failure.get(), failedAtStep.get(), figures);
    } finally {
      attacker.shutdownNow();
      sampler.shutdownNow();
      JarProcess b = beside.get();
      if (b != null) {
        b.close();
      }
      // a step still running could hold the namespace again after its release
      attacker.awaitTermination(120, TimeUnit.SECONDS);
      release(admin, input, leavingNs);
      for (String ns : List.of(tenantNs, victimNs, leaseNs)) {
        try {
          admin.namespaces().withName(ns).delete();
        } catch (RuntimeException e) {
          System.err.println("hostile-tenant: deleting namespace " + ns + " failed: " + e);
        }
      }
    }
  }

  /**
   * The first line of {@code log} that is not one JSON object with the string fields time, level,
   * logger and message, or null when every line is one.
   */
  static @Nullable String firstLineNotJson(String log) {
    for (String line : log.split("\n")) {
      try {
        JsonNode record = JSON.readTree(line);
        if (record == null
            || !record.isObject()
            || !List.of("time", "level", "logger", "message").stream()
                .allMatch(f -> record.path(f).isString())) {
          return line;
        }
      } catch (JacksonException e) {
        return line;
      }
    }
    return null;
  }

  /** Lets the tenant's deleted namespace go: the finalizers its objects were held by removed. */
  private static void release(KubernetesClient admin, Dialect input, String ns) {
    try {
      admin
          .pods()
          .inNamespace(ns)
          .withName("held")
          .edit(p -> new PodBuilder(p).editMetadata().withFinalizers().endMetadata().build());
    } catch (RuntimeException e) {
      // never made
    }
    try {
      admin
          .genericKubernetesResources(input.kind())
          .inNamespace(ns)
          .withName("held")
          .edit(
              o -> {
                o.getMetadata().setFinalizers(null);
                return o;
              });
    } catch (RuntimeException e) {
      // never made
    }
    try {
      admin.namespaces().withName(ns).delete();
    } catch (RuntimeException e) {
      System.err.println("hostile-tenant: deleting namespace " + ns + " failed: " + e);
    }
  }

  /**
   * The victim's intermediate reports left, for a failure's message; -1 when they cannot be read.
   */
  private static int intermediatesLeft(Victim victim) {
    try {
      return victim.intermediatesLeft();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /**
   * The flags of a release of {@code input} as the chart starts it: its own ServiceAccount bound to
   * the input's shipped roles (created here), the wgpolicy format, its Lease in {@code leaseNs}.
   */
  private List<String> releaseArgs(
      Dialect input, String account, String leaseNs, String identity, int port) throws IOException {
    cluster.serviceAccount(account, input.aggregatorRoles().toArray(String[]::new));
    Path dir = Files.createDirectories(Path.of("target", "hostile-tenant"));
    Path kubeconfig = dir.resolve(account + ".kubeconfig");
    Files.writeString(
        kubeconfig, cluster.env().serviceAccountKubeconfig(cluster.namespace(), account));
    List<String> args = new ArrayList<>(input.flags());
    args.addAll(
        List.of(
            "--kubeconfig",
            kubeconfig.toString(),
            "--format",
            "wgpolicy",
            "--lease-namespace",
            leaseNs,
            "--lease-name",
            input.aggregatorRoles().get(0),
            "--identity",
            identity,
            "--http-port",
            Integer.toString(port)));
    return args;
  }

  private void attack(Tenant tenant, AtomicInteger next) {
    if (failure.get() != null) {
      return;
    }
    int i = next.getAndIncrement();
    if (i >= plan.steps().size()) {
      return;
    }
    Plan.Step step = plan.steps().get(i);
    lastStep = step.index();
    executed.add(step);
    tenant.stepOf(step.kind().name());
    try {
      step.kind().attack().step(tenant, new SplittableRandom(step.seed()));
    } catch (Tenant.BudgetSpent e) {
      next.set(Integer.MAX_VALUE);
    } catch (Exception | AssertionError e) {
      // a step the harness itself could not make: counted and shown, the run goes on
      tenant.count("harness-error " + e.getClass().getSimpleName());
      System.err.println("hostile-tenant: step " + step + " could not be made: " + e);
    }
  }

  private void sample(JarProcess jar, int port, long pid, Tenant tenant) {
    try {
      if (!jar.process.isAlive()) {
        fail("the aggregator exited (" + jar.process.exitValue() + ")");
        return;
      }
      long rss = vmRssKiB(pid);
      peakRss.accumulateAndGet(rss, Math::max);
      if (rss > settings.rssLimitKiB()) {
        fail("the aggregator's RSS is " + rss / 1024 + " MiB, over its limit");
      }
      int status = probe(port, "/healthz");
      probes.incrementAndGet();
      if (status != 200) {
        probeFailures.incrementAndGet();
        fail(
            "/healthz answered "
                + (status < 0 ? "nothing within " + PROBE_TIMEOUT.toSeconds() + " s" : status));
      }
      long log = jar.logBytes();
      long budget = LOG_BASE_BYTES + LOG_BYTES_PER_REQUEST * tenant.requests();
      peakLog.accumulateAndGet(log, Math::max);
      if (log > budget) {
        fail(
            "the aggregator's log is "
                + log / 1024
                + " KiB after "
                + tenant.requests()
                + " tenant requests, over its budget of "
                + budget / 1024
                + " KiB: something is logged again and again");
      }
      if (probes.get() % 5 == 0) {
        long held = tenantReportBytes(tenant);
        // over in two samples in a row: a LIST between the create of a new piece of a split report
        // and the delete of the old one counts their results twice
        boolean over = held > TENANT_REPORT_BYTES;
        boolean overBefore = tenantOver;
        tenantOver = over;
        if (over && overBefore) {
          fail(
              "the aggregator's reports in the tenant's namespace hold "
                  + held / 1024
                  + " KiB, past what its cap of "
                  + MAX_RESULT_BYTES / 1024
                  + " KiB of results per namespace allows ("
                  + TENANT_REPORT_BYTES / 1024
                  + " KiB as JSON): a cap in bytes was not kept");
        }
        double refused = metric(port, "tally_writes_refused_total");
        if (refused > 0) {
          fail(
              "the API server refused "
                  + (long) refused
                  + " aggregates for good (tally_writes_refused_total): an input made an object"
                  + " no write can store instead of being refused at decode");
        }
      }
    } catch (RuntimeException e) {
      fail("sampling the aggregator failed: " + e);
    }
  }

  /**
   * What the results of the aggregator's reports in the tenant's namespace weigh, as JSON: what it
   * holds for that namespace, which its caps in bytes bound; 0 when the LIST failed.
   */
  private long tenantReportBytes(Tenant tenant) {
    List<PolicyReportResource> reports;
    try {
      reports =
          cluster
              .admin()
              .resources(PolicyReportResource.class)
              .inNamespace(tenant.ns)
              .list()
              .getItems();
    } catch (KubernetesClientException e) {
      return 0; // a LIST that failed (the server busy with the tenant's writes): the next sample
    }
    long bytes = 0;
    for (PolicyReportResource object : reports) {
      try {
        if (ReportCodec.decode(object).ownedBy(settings.input().grouping().layout())
            && object.getResults() != null) {
          bytes += Serialization.asJson(object.getResults()).length();
        }
      } catch (RuntimeException e) {
        // a squat of the tenant's, or an aggregate it edited: not what the aggregator holds
      }
    }
    return bytes;
  }

  /** The sum of a metric's samples on the aggregator's /metrics; 0 when it has none. */
  static double metric(int port, String name) {
    try {
      String text =
          PROBE
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                      .timeout(PROBE_TIMEOUT)
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      double sum = 0;
      for (String line : text.split("\n")) {
        if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
          sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      return sum;
    } catch (IOException e) {
      return 0; // an answer missed is /healthz's to report
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }

  /** GET {@code path} on loopback within {@link #PROBE_TIMEOUT}; -1 when no answer. */
  static int probe(int port, String path) {
    try {
      return PROBE
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .timeout(PROBE_TIMEOUT)
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** The process's resident set, from {@code /proc/<pid>/status}; 0 once it is gone. */
  static long vmRssKiB(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
      return 0;
    } catch (IOException e) {
      return 0;
    }
  }

  static void installTenantRole(KubernetesClient admin) {
    try (InputStream in = HostileRun.class.getResourceAsStream("tenant-namespace-admin.yaml")) {
      if (in == null) {
        throw new IllegalStateException("tenant-namespace-admin.yaml is missing");
      }
      String yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      for (HasMetadata item :
          admin
              .load(new java.io.ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)))
              .items()) {
        admin.resource(item).createOr(existing -> existing.update());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The control plane installs the report CRDs at its start; they answer once served. */
  private static void awaitReportsServed(KubernetesClient admin) {
    Await.until(
        "the report kinds are served",
        () -> {
          try {
            admin
                .resources(dev.tally.report.fabric8.resource.PolicyReportResource.class)
                .inAnyNamespace()
                .list();
            admin
                .resources(dev.tally.report.fabric8.resource.PartialReportResource.class)
                .inAnyNamespace()
                .list();
            return true;
          } catch (RuntimeException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
