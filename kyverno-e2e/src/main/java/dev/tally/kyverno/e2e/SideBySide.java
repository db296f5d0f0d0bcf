package dev.tally.kyverno.e2e;

import dev.tally.kyverno.e2e.Aggregation.Mode;
import dev.tally.testenv.AuditLog;
import dev.tally.testenv.ChildProcess;
import dev.tally.testenv.KubeTestEnv;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Kyverno's aggregation and Tally's, measured side by side on one control plane with the same load:
 * Kyverno v1.19.1's admission and reports controllers (the scenario's policies), a burst of Pods
 * admitted at once, then background scans; once with Kyverno aggregating ({@code
 * --aggregateReports=true}), once with Tally's aggregator installed by {@code deploy/kyverno/}.
 * Requests come from the API server's audit log, CPU time and peak RSS from {@code /proc}.
 *
 * <p>Run by {@code benchmarks/run-kyverno-side-by-side.sh}: {@code SideBySide <pods>
 * <scan-interval-seconds> <scans> <out-dir>}. It prints one table per Pod count (Markdown), and
 * writes it with the raw request counts under {@code out-dir}.
 */
public final class SideBySide {
  static final String SA = "system:serviceaccount:kyverno:";
  static final String REPORTS_CONTROLLER = SA + "kyverno-reports-controller";
  static final String TALLY = SA + "tally-kyverno-aggregator";

  /** The resources the aggregation reads and writes: the intermediate reports and the reports. */
  static final Set<String> REPORT_RESOURCES =
      Set.of(
          "ephemeralreports", "clusterephemeralreports", "policyreports", "clusterpolicyreports");

  /**
   * Requests of Kyverno's reports controller on those resources that are its background scan's: it
   * looks for an intermediate report of the resource and creates one.
   */
  private static final Set<String> SCAN_REQUESTS =
      Set.of("create ephemeralreports", "get ephemeralreports");

  /** How long the burst's reports are waited for before the run goes on without them. */
  private static final Duration REPORTS_WITHIN = Duration.ofMinutes(10);

  private SideBySide() {}

  /** What one run measured. */
  record Figures(
      Mode mode,
      int pods,
      double burstSeconds,
      double reportsSeconds,
      List<Integer> waitingAfterScan,
      List<Long> writesPerScan,
      Map<String, Long> burstRequests,
      Map<String, Long> scanRequests,
      long backgroundReports,
      double aggregatorCpu,
      double aggregatorCpuFromStart,
      double reportsControllerCpu,
      double aggregatorScanCpu,
      double reportsControllerScanCpu,
      long aggregatorPeakRss,
      long reportsControllerPeakRss,
      int staleAfterFix,
      int scansCompleted,
      long scanBoundMinutes) {}

  public static void main(String[] args) throws Exception {
    int pods = Integer.parseInt(args[0]);
    Duration interval = Duration.ofSeconds(Long.parseLong(args[1]));
    int scans = Integer.parseInt(args[2]);
    Path out = Path.of(args[3]);
    Files.createDirectories(out);
    KubeTestEnv env = KubeTestEnv.shared();
    List<Figures> figures = new ArrayList<>();
    for (Mode mode : List.of(Mode.KYVERNO, Mode.TALLY)) {
      Figures f = run(env, mode, pods, interval, scans);
      // each mode's figures as soon as they are taken: a run stopped later keeps them
      log(mode + ": " + f);
      figures.add(f);
    }
    String table = table(figures, interval, scans);
    System.out.println(table);
    Files.writeString(out.resolve("side-by-side-" + pods + ".md"), table);
    System.exit(0);
  }

  private static Figures run(KubeTestEnv env, Mode mode, int pods, Duration interval, int scans)
      throws Exception {
    String ns = "side-" + mode.name().toLowerCase(Locale.ROOT) + "-" + pods;
    log(
        mode
            + ": "
            + pods
            + " Pods, a scan every "
            + interval.toSeconds()
            + " s, "
            + scans
            + " scans");
    AuditLog audit = AuditLog.of(env);
    try (KubernetesClient admin = env.adminClient()) {
      Policies.labelledNamespace(admin, ns);
      try (Aggregation run = Aggregation.start(env, mode, interval);
          ScanWatch watch = new ScanWatch(admin, ns);
          Reports.Watch reportsWatch = new Reports.Watch(admin, ns)) {
        Policies.applyAll(admin, ns);
        ChildProcess aggregator = run.aggregator();
        ChildProcess reports = run.reportsController();
        double cpuAtStart = aggregator.cpuSeconds();
        double rcAtStart = reports.cpuSeconds();
        long startMark = audit.mark();
        long t0 = System.nanoTime();

        // the burst: every Pod created at once from 16 threads; half of them fail check-team
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<?>> created = new ArrayList<>();
        for (int i = 0; i < pods; i++) {
          Pod pod = pod(i);
          created.add(pool.submit(() -> admin.pods().inNamespace(ns).resource(pod).create()));
        }
        for (Future<?> f : created) {
          f.get();
        }
        pool.shutdown();
        double burst = seconds(t0);
        log(mode + ": burst admitted in " + String.format(Locale.ROOT, "%.1f", burst) + " s");
        // bounded: an aggregator that falls behind is recorded as such, and the scans go on
        boolean all = within(REPORTS_WITHIN, () -> reportsWatch.pods() >= pods);
        double reportsAt = all ? seconds(t0) : -reportsWatch.pods();
        log(
            mode
                + ": every Pod has its report after "
                + String.format(Locale.ROOT, "%.1f", reportsAt)
                + " s");
        long burstEnd = audit.mark();
        // the scans' CPU apart: the process is warmed up by then (the issue's "after a first
        // burst")
        double cpuAtScans = aggregator.cpuSeconds();
        double rcAtScans = reports.cpuSeconds();

        // background scans: a scan is over when every Pod was scanned once more since the last
        List<Integer> waiting = new ArrayList<>();
        List<Long> writes = new ArrayList<>();
        List<String> uids =
            admin.pods().inNamespace(ns).list().getItems().stream()
                .map(p -> p.getMetadata().getUid())
                .toList();
        long backgroundBefore = uids.stream().mapToLong(watch::scans).sum();
        Map<String, Long> mark = watch.mark();
        long writeMark = audit.mark();
        int scansCompleted = 0;
        Duration scanBound = interval.multipliedBy(3).plus(Duration.ofMinutes(10));
        for (int s = 1; s <= scans; s++) {
          Map<String, Long> scanStart = mark;
          // bounded, and recorded rather than fatal: a scan that never reaches every Pod (a
          // backlog of intermediate reports past Kyverno's --maxBackgroundReports stops the scan
          // writing them) is a finding of the run
          boolean reached = within(scanBound, () -> watch.scannedSince(scanStart, uids, 1));
          // the end of scan interval s is when scan s+1 begins: what waits then is what the
          // aggregator did not keep up with
          Map<String, Long> next = watch.mark();
          reached = reached && within(scanBound, () -> watch.anyScannedSince(next, uids));
          int w = Reports.waiting(admin, ns);
          if (!reached) {
            waiting.add(w);
            writes.add(
                reportWrites(
                    audit.between(writeMark, audit.mark()),
                    mode == Mode.TALLY ? TALLY : REPORTS_CONTROLLER));
            log(
                mode
                    + ": scan "
                    + s
                    + " did not reach every Pod within "
                    + scanBound.toMinutes()
                    + " min; intermediate reports waiting: "
                    + w);
            break;
          }
          scansCompleted = s;
          waiting.add(w);
          long nextWriteMark = audit.mark();
          writes.add(
              reportWrites(
                  audit.between(writeMark, nextWriteMark),
                  mode == Mode.TALLY ? TALLY : REPORTS_CONTROLLER));
          writeMark = nextWriteMark;
          mark = next;
          log(mode + ": scan interval " + s + " over; intermediate reports waiting: " + w);
        }
        long backgroundReports = uids.stream().mapToLong(watch::scans).sum() - backgroundBefore;

        Map<String, Long> burstRequests = requests(audit.between(startMark, burstEnd), mode);
        Map<String, Long> allRequests = requests(audit.since(startMark), mode);
        Map<String, Long> scanRequests = new TreeMap<>(allRequests);
        burstRequests.forEach((k, v) -> scanRequests.merge(k, -v, Long::sum));
        scanRequests.values().removeIf(v -> v == 0);

        double cpu = aggregator.cpuSeconds() - cpuAtStart;
        double cpuFromStart = aggregator.cpuSeconds();
        double rcCpu = reports.cpuSeconds() - rcAtStart;
        double scanCpu = aggregator.cpuSeconds() - cpuAtScans;
        double rcScanCpu = reports.cpuSeconds() - rcAtScans;
        long rss = aggregator.peakRssBytes();
        long rcRss = reports.peakRssBytes();

        int stale = staleAfterFix(admin, ns, watch, interval);
        for (var p : Policies.clusterPolicies(admin)) {
          admin.resource(p).delete();
        }
        return new Figures(
            mode,
            pods,
            burst,
            reportsAt,
            waiting,
            writes,
            burstRequests,
            scanRequests,
            backgroundReports,
            cpu,
            cpuFromStart,
            rcCpu,
            scanCpu,
            rcScanCpu,
            rss,
            rcRss,
            stale,
            scansCompleted,
            scanBound.toMinutes());
      } finally {
        admin.namespaces().withName(ns).delete();
        waitFor(
            "namespace " + ns + " is gone",
            Duration.ofMinutes(20),
            () -> admin.namespaces().withName(ns).get() == null);
      }
    }
  }

  /**
   * Fixes ten Pods (the label check-team wants) and takes check-owner's selector label off ten
   * others, waits for two scans of them, and counts the results left that no evaluation produces
   * now: check-team failures on the fixed Pods, check-owner results on the others.
   */
  private static int staleAfterFix(
      KubernetesClient admin, String ns, ScanWatch watch, Duration interval) {
    List<String> fixed = new ArrayList<>();
    List<String> unmatched = new ArrayList<>();
    for (int i = 0; i < 40 && (fixed.size() < 10 || unmatched.size() < 10); i++) {
      Pod pod = admin.pods().inNamespace(ns).withName(name(i)).get();
      Map<String, String> labels = pod.getMetadata().getLabels();
      if (!labels.containsKey("team") && fixed.size() < 10) {
        labels.put("team", "shop");
        fixed.add(pod.getMetadata().getUid());
      } else if (labels.containsKey("owner-check") && unmatched.size() < 10) {
        labels.remove("owner-check");
        unmatched.add(pod.getMetadata().getUid());
      } else {
        continue;
      }
      admin.pods().inNamespace(ns).resource(pod).update();
    }
    Map<String, Long> mark = watch.mark();
    List<String> all = new ArrayList<>(fixed);
    all.addAll(unmatched);
    if (!within(
        interval.multipliedBy(4).plus(Duration.ofMinutes(5)),
        () -> watch.scannedSince(mark, all, 2))) {
      log("the changed Pods were not scanned twice: stale results not measured");
      return -1;
    }
    // bounded: an aggregator that is behind shows what it shows then
    within(
        Duration.ofMinutes(5),
        () -> Reports.waitingAbout(admin, ns).stream().noneMatch(all::contains));
    int stale = 0;
    Map<String, SortedSet<String>> byUid = Reports.byUid(admin, ns);
    for (String uid : fixed) {
      stale +=
          byUid
                  .getOrDefault(uid, new java.util.TreeSet<>())
                  .contains(Policies.LABELS + "/check-team=fail")
              ? 1
              : 0;
    }
    for (String uid : unmatched) {
      stale +=
          byUid.getOrDefault(uid, new java.util.TreeSet<>()).stream()
                  .anyMatch(r -> r.startsWith(Policies.LABELS + "/check-owner="))
              ? 1
              : 0;
    }
    return stale;
  }

  /** The aggregation's requests among {@code events}, by verb and resource (leases left out). */
  private static Map<String, Long> requests(List<AuditLog.Event> events, Mode mode) {
    Map<String, Long> out = new TreeMap<>();
    for (AuditLog.Event e : events) {
      boolean mine =
          mode == Mode.TALLY
              ? e.user().equals(TALLY) && !e.resource().equals("leases")
              : e.user().equals(REPORTS_CONTROLLER)
                  && REPORT_RESOURCES.contains(e.resource())
                  && !SCAN_REQUESTS.contains(e.verbAndResource());
      if (mine) {
        out.merge(e.verbAndResource(), 1L, Long::sum);
      }
    }
    return out;
  }

  private static String waiting(Figures f, int scans) {
    String list = f.waitingAfterScan().toString();
    return f.scansCompleted() >= scans
        ? list
        : list
            + " (scan "
            + (f.scansCompleted() + 1)
            + " did not reach every Pod within "
            + f.scanBoundMinutes()
            + " min)";
  }

  private static String stale(Figures f) {
    return f.staleAfterFix() < 0
        ? "not measured (the changed Pods were not scanned twice)"
        : Integer.toString(f.staleAfterFix());
  }

  /** The report writes (create, update, patch of PolicyReports) by {@code user} among events. */
  static long reportWrites(List<AuditLog.Event> events, String user) {
    return events.stream()
        .filter(e -> e.user().equals(user))
        .filter(e -> e.resource().equals("policyreports"))
        .filter(e -> Set.of("create", "update", "patch").contains(e.verb()))
        .count();
  }

  static String table(List<Figures> runs, Duration interval, int scans) {
    Figures k = runs.get(0);
    Figures t = runs.get(1);
    StringBuilder out = new StringBuilder();
    out.append("### ")
        .append(k.pods())
        .append(" Pods in one burst, then ")
        .append(scans)
        .append(" background scans, one every ")
        .append(interval.toSeconds())
        .append(" s\n\n");
    out.append("| | Kyverno's aggregation | Tally's aggregator |\n|---|---:|---:|\n");
    row(out, "burst admitted (s)", f1(k.burstSeconds()), f1(t.burstSeconds()));
    row(out, "every Pod has its report (s after the burst began)", reportsTime(k), reportsTime(t));
    row(
        out,
        "intermediate reports waiting at the end of each scan",
        waiting(k, scans),
        waiting(t, scans));
    row(
        out,
        "aggregation requests per admission event",
        f2(sum(k.burstRequests()) / (double) k.pods()),
        f2(sum(t.burstRequests()) / (double) t.pods()));
    row(
        out,
        "aggregation requests per background report",
        f2(sum(k.scanRequests()) / (double) Math.max(1, k.backgroundReports())),
        f2(sum(t.scanRequests()) / (double) Math.max(1, t.backgroundReports())));
    row(
        out,
        "report writes in each scan",
        k.writesPerScan().toString(),
        t.writesPerScan().toString());
    double share = k.reportsControllerCpu() - t.reportsControllerCpu();
    row(
        out,
        "CPU of the aggregation, burst and scans (s)",
        f1(share)
            + " (reports controller "
            + f1(k.reportsControllerCpu())
            + " − "
            + f1(t.reportsControllerCpu())
            + " without aggregation)",
        f1(t.aggregatorCpu()));
    double scanShare = k.reportsControllerScanCpu() - t.reportsControllerScanCpu();
    row(
        out,
        "CPU of the aggregation in the scans, warmed up by the burst (s)",
        f1(scanShare)
            + " ("
            + f1(k.reportsControllerScanCpu())
            + " − "
            + f1(t.reportsControllerScanCpu())
            + ")",
        f1(t.aggregatorScanCpu()));
    row(
        out,
        "the same per background report (ms)",
        f2(1000 * scanShare / Math.max(1, k.backgroundReports())),
        f2(1000 * t.aggregatorScanCpu() / Math.max(1, t.backgroundReports())));
    row(
        out,
        "CPU of the aggregating process from its start (s)",
        f1(k.aggregatorCpuFromStart()) + " (whole reports controller)",
        f1(t.aggregatorCpuFromStart()));
    row(
        out,
        "peak RSS (MB)",
        mb(k.aggregatorPeakRss()) + " (whole reports controller)",
        mb(t.aggregatorPeakRss()));
    row(out, "stale results after 10 Pods fixed and 10 no longer matched", stale(k), stale(t));
    out.append(
        "\nRequests of the aggregation by verb and resource, from the audit log: for Tally every"
            + " request of its ServiceAccount but its Lease's; for Kyverno the reports controller's"
            + " requests on intermediate reports and reports, but the background scan's own (get"
            + " and create of intermediate reports):\n\n");
    out.append(
        "| phase | verb resource | Kyverno's aggregation | Tally's aggregator |\n|---|---|---:|---:|\n");
    for (String phase : List.of("burst", "scans")) {
      Map<String, Long> kr = phase.equals("burst") ? k.burstRequests() : k.scanRequests();
      Map<String, Long> tr = phase.equals("burst") ? t.burstRequests() : t.scanRequests();
      TreeMap<String, Long> keys = new TreeMap<>(kr);
      tr.keySet().forEach(key -> keys.putIfAbsent(key, 0L));
      for (String key : keys.keySet()) {
        out.append("| ")
            .append(phase)
            .append(" | ")
            .append(key)
            .append(" | ")
            .append(kr.getOrDefault(key, 0L))
            .append(" | ")
            .append(tr.getOrDefault(key, 0L))
            .append(" |\n");
      }
    }
    out.append("\nBackground reports in the scans: Kyverno ")
        .append(k.backgroundReports())
        .append(", Tally ")
        .append(t.backgroundReports())
        .append(".\n");
    return out.toString();
  }

  /** The seconds until every Pod had its report, or how many had one when the wait ended. */
  private static String reportsTime(Figures f) {
    return f.reportsSeconds() >= 0
        ? f1(f.reportsSeconds())
        : "not within "
            + REPORTS_WITHIN.toMinutes()
            + " min: "
            + (long) -f.reportsSeconds()
            + " of "
            + f.pods();
  }

  private static void row(StringBuilder out, String what, String kyverno, String tally) {
    out.append("| ")
        .append(what)
        .append(" | ")
        .append(kyverno)
        .append(" | ")
        .append(tally)
        .append(" |\n");
  }

  private static long sum(Map<String, Long> m) {
    return m.values().stream().mapToLong(Long::longValue).sum();
  }

  static String f1(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  static String f2(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static String mb(long bytes) {
    return Long.toString(bytes / (1024 * 1024));
  }

  static String name(int i) {
    return String.format(Locale.ROOT, "load-%05d", i);
  }

  /** Pod i: every other one lacks the label check-team wants; every third asks for check-owner. */
  static Pod pod(int i) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (i % 2 == 0) {
      labels.put("team", "shop");
    }
    if (i % 3 == 0) {
      labels.put("owner-check", "on");
    }
    return Policies.pod(name(i), labels, false);
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  /**
   * Polls {@code condition} once a second until it holds or {@code timeout} passed: whether it
   * held.
   */
  static boolean within(Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        TimeUnit.SECONDS.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    return true;
  }

  /** Polls {@code condition} once a second until it holds; fails after {@code timeout}. */
  private static void waitFor(String what, Duration timeout, BooleanSupplier condition) {
    if (!within(timeout, condition)) {
      throw new IllegalStateException("timed out after " + timeout + " waiting until " + what);
    }
  }

  static void log(String line) {
    System.err.println(Instant.now() + " " + line);
  }
}
