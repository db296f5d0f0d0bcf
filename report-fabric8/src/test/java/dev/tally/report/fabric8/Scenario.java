package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.ClusterPolicyReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A generated cluster for end-to-end tests: subjects across namespaces, producers that evaluate
 * them, and an independent in-memory aggregator fed the same evaluations, whose aggregates are what
 * the cluster must converge to.
 */
final class Scenario {
  static final List<String> POLICIES =
      List.of("require-labels", "disallow-latest", "require-probes");

  final Random random;
  final Map<String, PartialReport> latest = new LinkedHashMap<>();
  final Set<String> deletedUids = new HashSet<>();
  final List<Subject> subjects = new ArrayList<>();
  private long tick = 1_700_000_000L;

  Scenario(long seed, int namespaces, int podsPerNamespace) {
    random = new Random(seed);
    for (int n = 0; n < namespaces; n++) {
      for (int p = 0; p < podsPerNamespace; p++) {
        subjects.add(Subject.of("v1", "Pod", "team-" + n, "app-" + p, "uid-" + n + "-" + p));
      }
    }
    subjects.add(Subject.of("v1", "Namespace", "", "team-0", "uid-ns-team-0"));
  }

  static ReportAggregator newAggregator() {
    return ReportAggregator.builder()
        .grouping(Grouping.perNamespace())
        .format(ReportFormat.WGPOLICY)
        .build();
  }

  /** One producer's evaluation of a subject, at the next tick. */
  PartialReport evaluate(String producer, Subject subject) {
    tick++;
    List<Result> results = new ArrayList<>();
    Set<CoverageKey> coverage = new HashSet<>();
    for (String policy : POLICIES) {
      coverage.add(CoverageKey.of("kyverno", policy));
      int roll = random.nextInt(10);
      if (roll == 0) {
        continue; // absent inside the coverage: retracts
      }
      results.add(
          Result.builder()
              .source("kyverno")
              .policy(policy)
              .rule("check")
              .status(
                  roll < 3 ? ResultStatus.FAIL : roll < 4 ? ResultStatus.WARN : ResultStatus.PASS)
              .message(roll < 3 ? "validation error" : "rule passed")
              .resource(subject)
              .build());
    }
    var e =
        new PartialReport(
            producer, subject, "", coverage, results, new Timestamp(tick, random.nextInt(1000)), 0);
    latest.put(producer + "/" + subject.uid(), e);
    return e;
  }

  /** Publishes one evaluation per subject and producer, and waits until they are written. */
  void publishAll(PartialReportPublisher publisher, String producer) throws Exception {
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (Subject s : subjects) {
      if (!deletedUids.contains(s.uid())) {
        writes.add(publisher.publish(evaluate(producer, s)));
      }
    }
    CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
  }

  /** Deletes a subject's partial reports as garbage collection would, and remembers it is gone. */
  void garbageCollect(KubernetesClient client, Subject subject) {
    deletedUids.add(subject.uid());
    latest.keySet().removeIf(k -> k.endsWith("/" + subject.uid()));
    if (subject.clusterScoped()) {
      client
          .resources(ClusterPartialReportResource.class)
          .withLabel(WireNames.SUBJECT_UID_LABEL, subject.uid())
          .delete();
    } else {
      client
          .resources(PartialReportResource.class)
          .inNamespace(subject.namespace())
          .withLabel(WireNames.SUBJECT_UID_LABEL, subject.uid())
          .delete();
    }
  }

  /** The aggregates the cluster must hold: a fresh aggregator fed every live evaluation. */
  List<AggregateReport> expected() {
    ReportAggregator batch = newAggregator();
    for (PartialReport e : latest.values()) {
      batch.apply(e);
    }
    return batch.aggregates();
  }

  /** What the cluster holds: every owned aggregate, decoded. */
  static List<AggregateReport> observed(KubernetesClient client) {
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
    out.sort(java.util.Comparator.comparing(AggregateReport::ref));
    return out;
  }

  /** Waits until the cluster holds exactly the expected aggregates. */
  void awaitConverged(KubernetesClient client) {
    List<AggregateReport> expected = expected();
    assertThat(expected).isNotEmpty();
    try {
      Await.until(
          "the cluster holds the expected aggregates",
          () -> observed(client).equals(expected),
          Duration.ofSeconds(45));
    } catch (AssertionError e) {
      assertThat(observed(client)).isEqualTo(expected);
    }
  }
}
