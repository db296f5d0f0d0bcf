package dev.tally.aggregator.hostile;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The victim: Pods of its own namespace created, changed, deleted and evaluated by its own
 * producer, which writes each evaluation as the input's object, and a model of what its reports
 * must hold: a fresh in-memory {@link ReportAggregator} of the aggregator's grouping fed the
 * victim's evaluations only (each stored object as the input reads it) and the deletions of its
 * Pods. Nothing the tenant does reaches the model.
 */
final class Victim {
  /** The policies every evaluation covers: one without a finding retracts its earlier results. */
  static final List<String> POLICIES =
      List.of("require-labels", "disallow-latest", "restrict-host-path", "require-probes");

  private static final int MAX_PODS = 6;

  /** A Pod of the victim and what was last said of it. */
  private record Tracked(Subject subject, Timestamp lastObserved, int scans) {}

  private final KubernetesClient admin;
  private final KubernetesClient producer;
  private final String ns;
  private final Dialect dialect;
  private final ReportAggregator model;
  private final SplittableRandom random;
  private final Map<String, Tracked> pods = new LinkedHashMap<>();
  private final long base;
  private long clock;
  private int created;
  private volatile Map<String, String> listedUids = Map.of();

  /**
   * @param producer the victim's producer, a namespace admin of {@code ns}
   * @param base the seconds of the first evaluation; later ones are a second apart
   */
  Victim(
      KubernetesClient admin,
      KubernetesClient producer,
      String ns,
      Dialect dialect,
      SplittableRandom random,
      long base) {
    this.admin = admin;
    this.producer = producer;
    this.ns = ns;
    this.dialect = dialect;
    this.random = random;
    this.base = base;
    this.model =
        ReportAggregator.builder()
            .grouping(dialect.grouping())
            .format(ReportFormat.WGPOLICY)
            .input(dialect.flag) // the input's name, as the jar's --input names it
            .build();
  }

  /** The victim's Pods now, as subjects (what a tenant may claim). */
  List<Subject> subjects() {
    synchronized (pods) {
      return pods.values().stream().map(Tracked::subject).toList();
    }
  }

  /** One change: a Pod created, changed or deleted, and evaluated; its description. */
  String change() {
    int n = pods.size();
    int roll = random.nextInt(100);
    if (n < 2 || (n < MAX_PODS && roll < 20)) {
      return create();
    }
    String name = new ArrayList<>(pods.keySet()).get(random.nextInt(n));
    if (roll < 60) {
      return evaluate(name, "evaluate");
    }
    if (roll < 85) {
      admin
          .pods()
          .inNamespace(ns)
          .withName(name)
          .edit(
              p -> {
                p.getMetadata().getLabels().put("revision", Integer.toString(random.nextInt(1000)));
                return p;
              });
      return evaluate(name, "change");
    }
    return delete(name);
  }

  private String create() {
    String name = "victim-" + created++;
    Pod pod =
        admin
            .pods()
            .inNamespace(ns)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(ns)
                    .addToLabels("app", "victim")
                    .endMetadata()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("app")
                    .withImage("registry.invalid/victim:1")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    Subject subject = Subject.of("v1", "Pod", ns, name, pod.getMetadata().getUid());
    synchronized (pods) {
      pods.put(name, new Tracked(subject, Timestamp.EPOCH, 0));
    }
    return evaluate(name, "create");
  }

  private String evaluate(String name, String what) {
    Tracked pod = pods.get(name);
    Timestamp at = Timestamp.ofSeconds(base + ++clock);
    List<Evaluation.Finding> findings = new ArrayList<>();
    for (String policy : POLICIES) {
      int roll = random.nextInt(4);
      if (roll < 3) {
        ResultStatus status =
            roll == 0 ? ResultStatus.PASS : roll == 1 ? ResultStatus.FAIL : ResultStatus.WARN;
        findings.add(
            new Evaluation.Finding(policy, "check", status, policy + " at " + at.seconds()));
      }
    }
    Evaluation e = new Evaluation(pod.subject(), new TreeSet<>(POLICIES), findings, at);
    String object =
        dialect == Dialect.KYVERNO
            ? pod.subject().uid() + "-scan-" + pod.scans()
            : "victim-" + name;
    GenericKubernetesResource written =
        producer
            .resource(dialect.encode(ns, object, e, "victim-engine"))
            .fieldManager("victim-engine")
            .forceConflicts()
            .serverSideApply();
    PartialReport partial =
        Dialect.ready(dialect.statement(written))
            .orElseThrow(() -> new IllegalStateException("the victim's evaluation says nothing"));
    model.apply(partial);
    // the time the input says it was observed at (Kyverno's, for one, may be the report's own
    // creation): the model's deletion must be at or after it, as the aggregator's is
    Timestamp observed =
        partial.observedAt().compareTo(pod.lastObserved()) > 0
            ? partial.observedAt()
            : pod.lastObserved();
    synchronized (pods) {
      pods.put(name, new Tracked(pod.subject(), observed, pod.scans() + 1));
    }
    return what + " " + name + " (" + findings.size() + " results)";
  }

  private String delete(String name) {
    Tracked pod;
    synchronized (pods) {
      pod = pods.remove(name);
    }
    admin.pods().inNamespace(ns).withName(name).withGracePeriod(0).delete();
    model.deleteSubject(ns, pod.subject().uid(), pod.lastObserved());
    return "delete " + name;
  }

  /** What the model says the victim's reports hold: results by report name. */
  Map<String, List<Result>> expected() {
    Map<String, List<Result>> out = new TreeMap<>();
    for (AggregateReport r : model.aggregates()) {
      if (r.ref().namespace().equals(ns)) {
        out.put(r.ref().name(), r.results());
      }
    }
    return out;
  }

  /** What the cluster's reports of the victim's namespace hold, as the aggregator wrote them. */
  Map<String, List<Result>> actual() {
    Map<String, List<Result>> out = new TreeMap<>();
    Map<String, String> uids = new TreeMap<>();
    for (PolicyReportResource object :
        admin.resources(PolicyReportResource.class).inNamespace(ns).list().getItems()) {
      AggregateReport r = ReportCodec.decode(object);
      if (r.ownedBy(dialect.grouping().layout())) {
        out.put(r.ref().name(), r.results());
        uids.put(r.ref().name(), object.getMetadata().getUid());
      }
    }
    listedUids = uids;
    return out;
  }

  /**
   * How many of the victim's intermediate reports are left (Kyverno's EphemeralReports, which the
   * aggregator deletes once merged, as Kyverno's own aggregation does); 0 for the other inputs,
   * whose objects are the producer's to keep.
   */
  int intermediatesLeft() {
    if (dialect != Dialect.KYVERNO) {
      return 0;
    }
    return admin
        .genericKubernetesResources(dialect.kind())
        .inNamespace(ns)
        .list()
        .getItems()
        .size();
  }

  /**
   * The {@code metadata.uid} of each report the last {@link #actual} listed, by name: a report of
   * the same name with another uid was deleted and written again in between, its results missing
   * for a while.
   */
  Map<String, String> listedUids() {
    return listedUids;
  }

  /**
   * The seconds of the harness's first evaluation: a day before now, so none is from the future.
   */
  static long baseSeconds() {
    return Instant.now().getEpochSecond() - 24 * 3600;
  }
}
