package dev.tally.kyverno.e2e;

import dev.tally.kyverno.e2e.Aggregation.Mode;
import dev.tally.testenv.AuditLog;
import dev.tally.testenv.ChildProcess;
import dev.tally.testenv.KubeTestEnv;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The side-by-side comparison with a producer in place of Kyverno's background scan, for Pod counts
 * Kyverno's webhook cannot admit in a benchmark's time (it admits about 20 Pods a second on two
 * cores). Per side (Kyverno aggregating, then Tally's aggregator beside Kyverno), as {@link
 * SideBySide} runs it: Kyverno's admission and reports controllers with the scenario's policies, 4
 * template Pods admitted through the webhook (the 4 label combinations of the load's Pods), and the
 * background-scan report Kyverno's real scan writes about each of them captured as a template. Then
 * Kyverno's scan is turned off and its admission controller and webhooks removed, the template Pods
 * deleted, and the producer ({@link ReportProducer}) takes over: a burst of Pods, each with its
 * intermediate report cloned from its template, then scans that write a new intermediate report for
 * every Pod, a given share of them with a verdict changed.
 *
 * <p>Measured from the burst on: intermediate reports waiting at each interval's end, the
 * aggregation's requests (audit log) per intermediate report, its report writes, its CPU time (for
 * Kyverno's reports controller, split by CPU profiles: what runs under its aggregation's package)
 * and peak RSS, the API server's CPU time, and the time from the last intermediate report created
 * to the last one gone.
 *
 * <p>Run by {@code benchmarks/run-kyverno-side-by-side.sh}: {@code Produced <pods> <scan-seconds>
 * <changed%,changed%,...> <objects-per-second> <out-dir>}.
 */
public final class Produced {
  private static final String AGGREGATE = "pkg/controllers/report/aggregate";
  private static final String BACKGROUND = "pkg/controllers/report/background";

  /** How long a template's capture, a drain after the last scan, a namespace's removal may take. */
  private static final Duration CAPTURE_WITHIN = Duration.ofMinutes(5);

  private static final Duration LAST_DRAIN_WITHIN = Duration.ofMinutes(10);
  private static final Duration CLEAN_WITHIN = Duration.ofMinutes(3);

  private Produced() {}

  /** One interval: the burst (index 0) or a scan, from its start to the next one's. */
  record Phase(
      String name,
      double startSeconds,
      int reports,
      int changed,
      int failures,
      double createSeconds,
      double drainSeconds,
      int waitingAtEnd,
      Map<String, Long> requests,
      long writes) {
    long requestCount() {
      return requests.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /** What one side measured; {@code failure} says why it stopped when it did not complete. */
  record Side(
      Mode mode,
      @Nullable String failure,
      List<Phase> phases,
      double aggregatorCpu,
      double aggregatorCpuFromStart,
      long aggregatorPeakRss,
      double reportsControllerCpu,
      double reportsControllerCpuFromStart,
      long reportsControllerPeakRss,
      double apiServerCpu,
      double profiledSeconds,
      double profiledAggregate,
      double profiledBackground,
      int profiles) {
    int reports() {
      return phases.stream().mapToInt(Phase::reports).sum();
    }

    /** Kyverno's aggregation counted low: the samples under its package. */
    double low() {
      return profiledAggregate;
    }

    /** Counted high: the reports controller from its start but its background scan's samples. */
    double high() {
      return reportsControllerCpuFromStart - profiledBackground;
    }

    static Side failed(Mode mode, String why) {
      return new Side(mode, why, List.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }
  }

  public static void main(String[] args) throws Exception {
    int pods = Integer.parseInt(args[0]);
    Duration interval = Duration.ofSeconds(Long.parseLong(args[1]));
    List<Double> changed =
        Arrays.stream(args[2].split(",")).map(Double::parseDouble).map(p -> p / 100).toList();
    double rate = Double.parseDouble(args[3]);
    Path out = Path.of(args[4]);
    Files.createDirectories(out);
    KubeTestEnv env = KubeTestEnv.shared();
    List<Side> sides = new ArrayList<>();
    // -Dtally.sides=tally (the script's SIDES) runs one side alone, the other recorded as not run
    List<String> run =
        List.of(
            System.getProperty("tally.sides", "kyverno,tally").toLowerCase(Locale.ROOT).split(","));
    for (Mode mode : List.of(Mode.KYVERNO, Mode.TALLY)) {
      Side s;
      if (!run.contains(mode.name().toLowerCase(Locale.ROOT))) {
        sides.add(Side.failed(mode, "not run (SIDES=" + String.join(",", run) + ")"));
        continue;
      }
      try {
        s = run(env, mode, pods, interval, changed, rate, out);
      } catch (RuntimeException e) {
        // one side that could not run is a finding; the other still runs
        SideBySide.log(mode + ": failed: " + e);
        e.printStackTrace();
        s = Side.failed(mode, String.valueOf(e.getMessage()));
      }
      SideBySide.log(mode + ": " + s);
      sides.add(s);
    }
    String table = table(sides, pods, interval, changed, rate);
    System.out.println(table);
    Files.writeString(out.resolve("side-by-side-produced-" + pods + ".md"), table);
    System.exit(0);
  }

  private static Side run(
      KubeTestEnv env,
      Mode mode,
      int pods,
      Duration interval,
      List<Double> changed,
      double rate,
      Path out) {
    String ns = "produced-" + mode.name().toLowerCase(Locale.ROOT) + "-" + pods;
    String tag = "produced-" + pods + "-" + mode.name().toLowerCase(Locale.ROOT);
    SideBySide.log(
        mode
            + ": produced, "
            + pods
            + " Pods, a scan every "
            + interval.toSeconds()
            + " s, verdicts changed "
            + changed.stream().map(p -> pct(p)).toList()
            + ", "
            + f0(rate)
            + " objects/s");
    AuditLog audit = AuditLog.of(env);
    int profilePort = ChildProcess.freePort();
    List<String> profiling =
        List.of("--profile=true", "--profilePort=" + profilePort, "--profileAddress=127.0.0.1");
    try (KubernetesClient admin = env.adminClient();
        KubernetesClient producerClient = env.adminClient()) {
      Policies.labelledNamespace(admin, ns);
      try (Aggregation run = Aggregation.start(env, mode, interval, profiling);
          ScanWatch ephemeral = new ScanWatch(admin, ns);
          Reports.Watch reportsWatch = new Reports.Watch(admin, ns)) {
        Policies.applyAll(admin, ns);
        ReportProducer producer =
            templates(admin, producerClient, ns, ephemeral, mode, rate, out, tag);

        // from here on no Kyverno evaluation: its scan off, its webhooks gone
        run.pauseScans();
        run.stopAdmission();
        removeTemplatePods(admin, ns, ephemeral, reportsWatch);

        return measure(
            env,
            mode,
            run,
            admin,
            ns,
            audit,
            producer,
            ephemeral,
            reportsWatch,
            pods,
            interval,
            changed,
            profilePort,
            out,
            tag);
      } finally {
        for (HasMetadata p : Policies.clusterPolicies(admin)) {
          admin.resource(p).delete();
        }
        admin.namespaces().withName(ns).delete();
        if (!SideBySide.within(
            Duration.ofMinutes(20), () -> admin.namespaces().withName(ns).get() == null)) {
          SideBySide.log(mode + ": namespace " + ns + " still there after 20 min");
        }
      }
    }
  }

  /**
   * Admits the 4 template Pods through Kyverno's webhook, waits (bounded) for Kyverno's background
   * scan to write its report about each, logs and saves them, and returns the producer made of
   * them.
   */
  private static ReportProducer templates(
      KubernetesClient admin,
      KubernetesClient producerClient,
      String ns,
      ScanWatch ephemeral,
      Mode mode,
      double rate,
      Path out,
      String tag) {
    KubernetesSerialization json = admin.getKubernetesSerialization();
    List<GenericKubernetesResource> templatePods = new ArrayList<>();
    for (int n = 0; n < 4; n++) {
      int c = n;
      Pod pod = SideBySide.pod(c);
      pod.getMetadata().setName(String.format(Locale.ROOT, "template-%d", c));
      GenericKubernetesResource generic = json.convertValue(pod, GenericKubernetesResource.class);
      GenericKubernetesResource[] created = new GenericKubernetesResource[1];
      // a new namespace's default ServiceAccount, which a Pod's admission needs, comes a moment
      // after the namespace
      if (!SideBySide.within(
          Duration.ofMinutes(1),
          () -> {
            try {
              created[0] =
                  admin
                      .genericKubernetesResources("v1", "Pod")
                      .inNamespace(ns)
                      .resource(generic)
                      .create();
              return true;
            } catch (RuntimeException e) {
              SideBySide.log(mode + ": template Pod " + c + " not created yet: " + e.getMessage());
              return false;
            }
          })) {
        throw new IllegalStateException("template Pod " + c + " could not be created");
      }
      templatePods.add(created[0]);
      ephemeral.want(created[0].getMetadata().getUid());
    }
    if (!SideBySide.within(
        CAPTURE_WITHIN,
        () ->
            templatePods.stream()
                .allMatch(p -> ephemeral.captured(p.getMetadata().getUid()) != null))) {
      throw new IllegalStateException(
          "Kyverno's background scan wrote no report about every template Pod within "
              + CAPTURE_WITHIN.toMinutes()
              + " min");
    }
    List<ReportProducer.Template> templates = new ArrayList<>();
    StringBuilder yaml = new StringBuilder();
    boolean hashes = true;
    for (int c = 0; c < 4; c++) {
      GenericKubernetesResource pod = templatePods.get(c);
      GenericKubernetesResource written = ephemeral.captured(pod.getMetadata().getUid());
      templates.add(ReportProducer.template(json, written, pod.getMetadata().getName()));
      yaml.append("# template ")
          .append(c)
          .append(": Pod ")
          .append(pod.getMetadata().getName())
          .append(" labels ")
          .append(pod.getMetadata().getLabels())
          .append('\n')
          .append(json.asYaml(written));
      String kyvernos = written.getMetadata().getLabels().get(ReportProducer.RESOURCE_HASH);
      String computed = ReportProducer.hash(pod);
      boolean same = computed.equals(kyvernos);
      hashes &= same;
      SideBySide.log(
          mode
              + ": template "
              + c
              + ": resource hash Kyverno "
              + kyvernos
              + ", computed "
              + computed
              + (same ? " (same)" : " (DIFFERENT: the template's value is kept for every Pod)"));
    }
    write(out.resolve(tag + "-templates.yaml"), yaml.toString());
    if (mode == Mode.KYVERNO) {
      // once in the run's log, for a reader to compare with what the producer writes
      SideBySide.log(
          mode
              + ": the template of Pods labelled "
              + templatePods.get(0).getMetadata().getLabels()
              + ", as Kyverno's background scan wrote it (all 4 in "
              + out.resolve(tag + "-templates.yaml")
              + "):\n"
              + json.asYaml(ephemeral.captured(templatePods.get(0).getMetadata().getUid())));
    }
    return new ReportProducer(producerClient, ns, templates, hashes, SideBySide::pod, rate);
  }

  /** Deletes the template Pods and waits (bounded) until no report about them is left. */
  private static void removeTemplatePods(
      KubernetesClient admin, String ns, ScanWatch ephemeral, Reports.Watch reports) {
    for (int c = 0; c < 4; c++) {
      admin.pods().inNamespace(ns).withName("template-" + c).delete();
    }
    if (!SideBySide.within(CLEAN_WITHIN, () -> ephemeral.waiting() == 0 && reports.pods() == 0)) {
      List<GenericKubernetesResource> left =
          admin
              .genericKubernetesResources(Reports.EPHEMERAL_REPORTS)
              .inNamespace(ns)
              .list()
              .getItems();
      SideBySide.log(
          "the template Pods' reports not all gone within "
              + CLEAN_WITHIN.toMinutes()
              + " min: deleting "
              + left.size()
              + " intermediate reports and the PolicyReports left:\n"
              + Reports.describeWaiting(admin, ns));
      admin.genericKubernetesResources(Reports.EPHEMERAL_REPORTS).inNamespace(ns).delete();
      admin.genericKubernetesResources(Reports.POLICY_REPORTS).inNamespace(ns).delete();
      SideBySide.within(Duration.ofMinutes(1), () -> ephemeral.waiting() == 0);
    }
  }

  private static Side measure(
      KubeTestEnv env,
      Mode mode,
      Aggregation run,
      KubernetesClient admin,
      String ns,
      AuditLog audit,
      ReportProducer producer,
      ScanWatch ephemeral,
      Reports.Watch reportsWatch,
      int pods,
      Duration interval,
      List<Double> changed,
      int profilePort,
      Path out,
      String tag) {
    ChildProcess aggregator = run.aggregator();
    ChildProcess reports = run.reportsController();
    long apiServer = apiServerPid();
    double aggregatorAt = aggregator.cpuSeconds();
    double reportsAt = reports.cpuSeconds();
    double apiServerAt = ChildProcess.ProcStat.cpuSeconds(apiServer);
    CpuProfile profile = CpuProfile.start(profilePort, out, "profile-" + tag);
    long t0 = System.nanoTime();
    List<Long> marks = new ArrayList<>();
    List<ReportProducer.Produced> produced = new ArrayList<>();
    List<Double> starts = new ArrayList<>();
    List<Double> drains = new ArrayList<>();
    List<Integer> waiting = new ArrayList<>();
    long start = t0;
    int scans = changed.size();
    for (int k = 0; k <= scans; k++) {
      if (k > 0) {
        sleepUntil(start + interval.toNanos());
        start = System.nanoTime();
      }
      marks.add(audit.mark());
      starts.add((start - t0) / 1e9);
      Map<String, String> relabelled = producer.refreshPolicyLabels(admin);
      if (!relabelled.isEmpty()) {
        SideBySide.log(mode + ": policy labels now " + relabelled);
      }
      long addedBefore = ephemeral.added();
      ReportProducer.Produced p =
          k == 0 ? producer.burst(pods) : producer.scan(k, changed.get(k - 1));
      produced.add(p);
      if (k == 0 && mode == Mode.KYVERNO) {
        // once in the run's log, beside the template it was cloned from
        SideBySide.log(
            mode + ": the report the producer writes about Pod 0 now:\n" + yaml(admin, producer));
      }
      String name = k == 0 ? "burst" : "scan " + k + " (" + pct(changed.get(k - 1)) + ")";
      SideBySide.log(
          mode
              + ": "
              + name
              + ": "
              + p.reports()
              + " intermediate reports"
              + (k == 0 ? " and Pods" : ", " + p.changed() + " verdicts changed")
              + " created in "
              + SideBySide.f1(p.seconds())
              + " s"
              + (p.failures() > 0
                  ? "; " + p.failures() + " failed, first: " + p.firstFailure()
                  : ""));
      int expected = p.reports();
      int podsCreated = k == 0 ? p.pods() : 0;
      BooleanSupplier drained =
          () ->
              ephemeral.added() >= addedBefore + expected
                  && ephemeral.waiting() == 0
                  && reportsWatch.pods() >= podsCreated;
      long next = start + interval.toNanos();
      long drainedAt = until(next, drained);
      sleepUntil(next);
      int w = ephemeral.waiting();
      waiting.add(w);
      SideBySide.log(
          mode
              + ": "
              + name
              + ": interval over; intermediate reports waiting: "
              + w
              + (drainedAt < 0
                  ? ""
                  : "; drained "
                      + SideBySide.f1((drainedAt - p.lastCreatedNanos()) / 1e9)
                      + " s after the last was created"));
      if (drainedAt < 0 && k == scans) {
        // the last interval: its drain measured beyond it, bounded
        drainedAt = until(System.nanoTime() + LAST_DRAIN_WITHIN.toNanos(), drained);
      }
      drains.add(drainedAt < 0 ? -1 : (drainedAt - p.lastCreatedNanos()) / 1e9);
    }
    long endMark = audit.mark();
    marks.add(endMark);
    double aggregatorCpu = aggregator.cpuSeconds() - aggregatorAt;
    double aggregatorFromStart = aggregator.cpuSeconds();
    double reportsCpu = reports.cpuSeconds() - reportsAt;
    double reportsFromStart = reports.cpuSeconds();
    double apiServerCpu = ChildProcess.ProcStat.cpuSeconds(apiServer) - apiServerAt;
    long aggregatorRss = aggregator.peakRssBytes();
    long reportsRss = reports.peakRssBytes();
    List<Path> profiles = profile.stop();

    String user = mode == Mode.TALLY ? SideBySide.TALLY : SideBySide.REPORTS_CONTROLLER;
    List<Phase> phases = new ArrayList<>();
    for (int k = 0; k <= scans; k++) {
      List<AuditLog.Event> events = audit.between(marks.get(k), marks.get(k + 1));
      ReportProducer.Produced p = produced.get(k);
      phases.add(
          new Phase(
              k == 0 ? "burst" : "scan " + k + " (" + pct(changed.get(k - 1)) + " changed)",
              starts.get(k),
              p.reports(),
              p.changed(),
              p.failures(),
              p.seconds(),
              drains.get(k),
              waiting.get(k),
              requests(events, mode),
              SideBySide.reportWrites(events, user)));
    }
    CpuProfile.Samples samples = CpuProfile.read(profiles, AGGREGATE, BACKGROUND);
    SideBySide.log(
        mode
            + ": reports controller profiled "
            + profiles.size()
            + " × 30 s: "
            + SideBySide.f2(samples.total())
            + " s sampled ("
            + SideBySide.f2(reportsCpu)
            + " s by /proc from the burst on), "
            + SideBySide.f2(samples.in()[0])
            + " s under "
            + AGGREGATE
            + ", "
            + SideBySide.f2(samples.in()[1])
            + " s under "
            + BACKGROUND);
    return new Side(
        mode,
        null,
        phases,
        aggregatorCpu,
        aggregatorFromStart,
        aggregatorRss,
        reportsCpu,
        reportsFromStart,
        reportsRss,
        apiServerCpu,
        samples.total(),
        samples.in()[0],
        samples.in()[1],
        profiles.size());
  }

  /** The first Pod's report as the producer writes it now, YAML, for the log. */
  private static String yaml(KubernetesClient admin, ReportProducer producer) {
    return admin.getKubernetesSerialization().asYaml(producer.sample(0));
  }

  /**
   * The aggregation's requests among {@code events}, by verb and resource: for Tally every request
   * of its ServiceAccount but its Lease's, for Kyverno the reports controller's on intermediate
   * reports and reports (its background scan is off here: none of them is the scan's).
   */
  static Map<String, Long> requests(List<AuditLog.Event> events, Mode mode) {
    Map<String, Long> out = new TreeMap<>();
    for (AuditLog.Event e : events) {
      boolean mine =
          mode == Mode.TALLY
              ? e.user().equals(SideBySide.TALLY) && !e.resource().equals("leases")
              : e.user().equals(SideBySide.REPORTS_CONTROLLER)
                  && SideBySide.REPORT_RESOURCES.contains(e.resource());
      if (mine) {
        out.merge(e.verbAndResource(), 1L, Long::sum);
      }
    }
    return out;
  }

  /**
   * The kube-apiserver of this JVM's control plane: the process among this JVM's descendants that
   * kube-testenv started in its {@code apiserver} role.
   */
  static long apiServerPid() {
    return ProcessHandle.current()
        .descendants()
        .filter(
            p -> {
              List<String> args = commandLine(p.pid());
              return args.size() > 1
                  && args.get(0).contains("kube-testenv")
                  && args.get(1).equals("apiserver");
            })
        .mapToLong(ProcessHandle::pid)
        .findFirst()
        .orElseThrow(
            () -> new IllegalStateException("no kube-apiserver among this JVM's children"));
  }

  private static List<String> commandLine(long pid) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
      return Arrays.asList(new String(raw, StandardCharsets.UTF_8).split("\0"));
    } catch (IOException e) {
      return List.of();
    }
  }

  /**
   * Polls {@code condition} every 100 ms until it holds, or until {@code deadline} (nanoTime): when
   * it first held, or -1.
   */
  private static long until(long deadline, BooleanSupplier condition) {
    while (true) {
      if (condition.getAsBoolean()) {
        return System.nanoTime();
      }
      if (System.nanoTime() > deadline) {
        return -1;
      }
      sleep(100_000_000L);
    }
  }

  private static void sleepUntil(long nanoTime) {
    long wait = nanoTime - System.nanoTime();
    if (wait > 0) {
      sleep(wait);
    }
  }

  private static void sleep(long nanos) {
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String table(
      List<Side> sides, int pods, Duration interval, List<Double> changed, double rate) {
    Side k = sides.get(0);
    Side t = sides.get(1);
    StringBuilder out = new StringBuilder();
    out.append("### ")
        .append(pods)
        .append(" Pods, their intermediate reports written by the producer: a burst, then ")
        .append(changed.size())
        .append(" scans one every ")
        .append(interval.toSeconds())
        .append(" s (verdicts changed: ")
        .append(changed.stream().map(Produced::pct).collect(Collectors.joining(", ")))
        .append("), ")
        .append(f0(rate))
        .append(" objects/s\n\n");
    for (Side s : sides) {
      if (s.failure() != null) {
        out.append("**")
            .append(s.mode())
            .append(" did not complete:** ")
            .append(s.failure())
            .append("\n\n");
      }
    }
    out.append("| | Kyverno's aggregation | Tally's aggregator | budget |\n|---|---:|---:|---|\n");
    row(
        out,
        "intermediate reports created (burst, each scan)",
        list(k, p -> Integer.toString(p.reports())),
        list(t, p -> Integer.toString(p.reports())),
        "");
    row(
        out,
        "verdicts changed in each scan",
        list(k, p -> Integer.toString(p.changed()), 1),
        list(t, p -> Integer.toString(p.changed()), 1),
        "");
    row(
        out,
        "seconds to create them (burst, each scan)",
        list(k, p -> SideBySide.f1(p.createSeconds())),
        list(t, p -> SideBySide.f1(p.createSeconds())),
        "");
    row(
        out,
        "intermediate reports waiting at each interval's end (burst, each scan)",
        list(k, p -> Integer.toString(p.waitingAtEnd())),
        list(t, p -> Integer.toString(p.waitingAtEnd())),
        "= 0");
    for (int i = 0; i < Math.max(k.phases().size(), t.phases().size()); i++) {
      int phase = i;
      boolean unchanged = i > 0 && changed.get(i - 1) == 0;
      row(
          out,
          "requests per intermediate report, "
              + (i == 0 ? "burst" : "scan " + i + " (" + pct(changed.get(i - 1)) + " changed)"),
          perReport(k, phase),
          perReport(t, phase),
          i == 0 ? "" : unchanged ? "= 1" : "≤ ½ Kyverno's");
      if (i > 0) {
        row(
            out,
            "report writes, scan " + i + " (" + pct(changed.get(i - 1)) + " changed)",
            phase < k.phases().size() ? Long.toString(k.phases().get(phase).writes()) : "–",
            phase < t.phases().size() ? Long.toString(t.phases().get(phase).writes()) : "–",
            unchanged ? "= 0" : "");
      }
    }
    row(
        out,
        "aggregator CPU per intermediate report from the burst on (ms)",
        k.failure() != null
            ? "–"
            : ms(k.low(), k)
                + " LOW: profiled under aggregate ("
                + ms(k.reportsControllerCpu(), k)
                + " whole reports controller)",
        t.failure() != null ? "–" : ms(t.aggregatorCpu(), t),
        "≤ Kyverno's LOW");
    row(
        out,
        "aggregator CPU per intermediate report from process start (ms)",
        k.failure() != null
            ? "–"
            : ms(k.high(), k) + " HIGH: reports controller from its start, but background",
        t.failure() != null ? "–" : ms(t.aggregatorCpuFromStart(), t),
        "≤ Kyverno's HIGH");
    row(
        out,
        "aggregator CPU, s: from the burst on; from process start",
        k.failure() != null
            ? "–"
            : SideBySide.f2(k.low())
                + " LOW ("
                + SideBySide.f2(k.reportsControllerCpu())
                + "); "
                + SideBySide.f2(k.high())
                + " HIGH",
        t.failure() != null
            ? "–"
            : SideBySide.f2(t.aggregatorCpu()) + "; " + SideBySide.f2(t.aggregatorCpuFromStart()),
        "");
    row(
        out,
        "peak RSS (MB)",
        k.failure() != null ? "–" : SideBySide.mb(k.aggregatorPeakRss()) + " (reports controller)",
        t.failure() != null ? "–" : SideBySide.mb(t.aggregatorPeakRss()),
        "≤ ½ Kyverno's reports controller");
    row(
        out,
        "s from the last intermediate report created to none left (burst: and every Pod's"
            + " PolicyReport written; burst, each scan)",
        list(k, p -> p.drainSeconds() < 0 ? "not drained" : SideBySide.f1(p.drainSeconds())),
        list(t, p -> p.drainSeconds() < 0 ? "not drained" : SideBySide.f1(p.drainSeconds())),
        "≤ Kyverno's");
    row(
        out,
        "API server CPU, same phase (s)",
        k.failure() != null ? "–" : SideBySide.f1(k.apiServerCpu()),
        t.failure() != null ? "–" : SideBySide.f1(t.apiServerCpu()),
        "");
    row(
        out,
        "aggregator CPU ÷ API server CPU, same phase",
        k.failure() != null
            ? "–"
            : SideBySide.f2(k.low() / Math.max(1e-9, k.apiServerCpu())) + " (LOW)",
        t.failure() != null
            ? "–"
            : SideBySide.f2(t.aggregatorCpu() / Math.max(1e-9, t.apiServerCpu())),
        "≤ 0.25 (Tally)");
    out.append(
        "\nThe phase runs from the burst's start to the end of the last scan's interval (or its"
            + " drain, when later). Kyverno's aggregation CPU is counted two ways from CPU profiles"
            + " of its reports controller (30 s each, one after the other): LOW is the samples"
            + " whose stack goes through "
            + AGGREGATE
            + "; HIGH is the whole reports controller's CPU from its start (/proc) less the samples"
            + " under "
            + BACKGROUND
            + " (its scan is off in this mode). Kyverno's reports controller is the one restarted"
            + " with its scan off after the templates were captured; Tally's aggregator runs from"
            + " before the templates. Kyverno's reports controller in Tally's run"
            + " (aggregation off) was profiled the same way: "
            + (t.failure() != null
                ? "–"
                : SideBySide.f2(t.low())
                    + " s under aggregate, "
                    + SideBySide.f2(t.reportsControllerCpu())
                    + " s in all from the burst on ("
                    + SideBySide.f2(t.reportsControllerCpuFromStart())
                    + " s from its start, peak RSS "
                    + SideBySide.mb(t.reportsControllerPeakRss())
                    + " MB)")
            + ". Requests per intermediate report are the aggregation's requests in the interval"
            + " (audit log) over the intermediate reports created in it.\n");
    out.append(
        "\nRequests of the aggregation by verb and resource, from the audit log: for Tally every"
            + " request of its ServiceAccount but its Lease's; for Kyverno the reports controller's"
            + " requests on intermediate reports and reports (its background scan is off):\n\n");
    out.append(
        "| phase | verb resource | Kyverno's aggregation | Tally's aggregator |\n"
            + "|---|---|---:|---:|\n");
    for (int i = 0; i < Math.max(k.phases().size(), t.phases().size()); i++) {
      Map<String, Long> kr = i < k.phases().size() ? k.phases().get(i).requests() : Map.of();
      Map<String, Long> tr = i < t.phases().size() ? t.phases().get(i).requests() : Map.of();
      String phase = i < k.phases().size() ? k.phases().get(i).name() : t.phases().get(i).name();
      TreeSet<String> keys = new TreeSet<>(kr.keySet());
      keys.addAll(tr.keySet());
      for (String key : keys) {
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
    return out.toString();
  }

  private static String perReport(Side s, int phase) {
    if (phase >= s.phases().size()) {
      return "–";
    }
    Phase p = s.phases().get(phase);
    return SideBySide.f2(p.requestCount() / (double) Math.max(1, p.reports()));
  }

  private static String list(Side s, Function<Phase, String> f) {
    return list(s, f, 0);
  }

  /** {@code f} of each phase from {@code from} on, as {@code [a, b]}. */
  private static String list(Side s, Function<Phase, String> f, int from) {
    return s.phases().isEmpty()
        ? "–"
        : s.phases().stream().skip(from).map(f).collect(Collectors.joining(", ", "[", "]"));
  }

  private static String ms(double seconds, Side s) {
    return SideBySide.f2(1000 * seconds / Math.max(1, s.reports()));
  }

  private static void row(
      StringBuilder out, String what, String kyverno, String tally, String budget) {
    out.append("| ")
        .append(what)
        .append(" | ")
        .append(kyverno)
        .append(" | ")
        .append(tally)
        .append(" | ")
        .append(budget)
        .append(" |\n");
  }

  static String pct(double fraction) {
    double p = fraction * 100;
    return (p == Math.rint(p) ? Long.toString((long) p) : SideBySide.f1(p)) + "%";
  }

  private static String f0(double v) {
    return String.format(Locale.ROOT, "%.0f", v);
  }
}
