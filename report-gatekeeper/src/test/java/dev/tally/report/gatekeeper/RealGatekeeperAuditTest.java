package dev.tally.report.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Grouping;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.AggregatorController;
import dev.tally.report.fabric8.RealServer;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.merge.gatekeeper.AuditRun;
import dev.tally.report.merge.gatekeeper.ExportLine;
import dev.tally.report.merge.gatekeeper.GatekeeperMapping;
import dev.tally.testenv.AuditLog;
import dev.tally.testenv.Await;
import dev.tally.testenv.ChildProcess;
import dev.tally.testenv.RealGatekeeper;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Gatekeeper input's scenario, against Gatekeeper's own audit built from its Go module and run
 * as its chart runs it with the disk export on, on the real control plane, with an {@link
 * AggregatorController} reading the export's directory beside it. A constraint of the test's own
 * template finds more violations than the constraint's status holds (the chart's cap of 20): the
 * run's file holds every one under the run id the status names, and the namespace's PolicyReport
 * every one as a failed result about the resource's uid. A later run retracts a violation fixed
 * since and the results of a deleted resource; a run that finds what the last found writes no
 * report (counted from the audit log).
 */
@ExtendWith(RealKubernetes.class)
class RealGatekeeperAuditTest {
  private static final Duration WAIT = Duration.ofSeconds(120);

  /** The chart's {@code constraintViolationsLimit}: what a constraint's status holds at most. */
  private static final int STATUS_CAP = 20;

  private static final String LABEL = "owner";

  private static final ResourceDefinitionContext CONSTRAINTS =
      new ResourceDefinitionContext.Builder()
          .withGroup("constraints.gatekeeper.sh")
          .withVersion("v1beta1")
          .withKind("TallyRequiredLabel")
          .withPlural("tallyrequiredlabel")
          .withNamespaced(false)
          .build();

  @Test
  void everyViolationIsExportedBeyondTheStatusCapAndTheNextRunsRetractAFixAndADeletion(
      RealKubernetes.Cluster cluster) throws Exception {
    RealGatekeeper gatekeeper = RealGatekeeper.install(cluster.env());
    KubernetesClient admin = cluster.admin();
    RealServer.installCrds(admin);
    String ns = cluster.namespace();
    // the namespace's own ConfigMap, which violates too, is there before the audit starts
    Await.until(
        "kube-root-ca.crt is published",
        () -> admin.configMaps().inNamespace(ns).withName("kube-root-ca.crt").get() != null,
        WAIT);
    Path exportPath = Path.of("target", "gatekeeper", "export-" + ns).toAbsolutePath();
    // a namespace's name can come again in a later build: its runs are not this one's
    deleteRecursively(exportPath);
    GatekeeperExport export = new GatekeeperExport(exportPath.resolve(RealGatekeeper.CHANNEL));
    for (int i = 0; i < STATUS_CAP + 5; i++) {
      configMap(admin, ns, String.format("unlabelled-%02d", i), Map.of());
    }
    configMap(admin, ns, "labelled", Map.of(LABEL, "team-a"));
    String constraint = "owner-" + ns;
    String policy = GatekeeperMapping.policy("TallyRequiredLabel", constraint);

    CountingApplied metrics = new CountingApplied();
    // the aggregator runs as a ServiceAccount bound to the input's shipped role alone
    for (HasMetadata role :
        admin
            .load(
                new ByteArrayInputStream(
                    GatekeeperInput.rbacYaml().getBytes(StandardCharsets.UTF_8)))
            .items()) {
      admin.resource(role).createOr(existing -> existing.update());
    }
    KubernetesClient account =
        cluster.serviceAccount("gatekeeper-aggregator", "tally-gatekeeper-aggregator");
    try (account;
        ChildProcess audit = gatekeeper.startAudit(exportPath, Duration.ofSeconds(3));
        AggregatorController controller =
            AggregatorController.builder(account)
                .aggregator(
                    () ->
                        ReportAggregator.builder()
                            .grouping(Grouping.perNamespace())
                            .input("gatekeeper")
                            .build())
                .input(
                    GatekeeperInput.reading(export.channel())
                        .withPollPeriod(Duration.ofMillis(500))
                        .withLookupKinds(Set.of("configmaps")))
                .metrics(metrics)
                .flushWindow(Duration.ofMillis(100))
                .build()
                .start()) {
      try (InputStream in =
          RealGatekeeperAuditTest.class.getResourceAsStream(
              "/gatekeeper/tallyrequiredlabel-template.yaml")) {
        admin
            .genericKubernetesResources(RealGatekeeper.CONSTRAINT_TEMPLATES)
            .load(in)
            .forceConflicts()
            .serverSideApply();
      }
      // Gatekeeper's template controller makes the constraint kind
      await(
          audit,
          "Gatekeeper made the constraint CRD",
          () ->
              admin
                      .apiextensions()
                      .v1()
                      .customResourceDefinitions()
                      .withName("tallyrequiredlabel.constraints.gatekeeper.sh")
                      .get()
                  != null);
      await(
          audit,
          "the constraint kind is served",
          () -> {
            try {
              admin.genericKubernetesResources(CONSTRAINTS).list();
              return true;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
              return false;
            }
          });
      admin.genericKubernetesResources(CONSTRAINTS).resource(constraint(constraint, ns)).create();

      // a run that audited the constraint: its status names the run, whose file holds every
      // violation, more than the status keeps
      Set<String> violating = unlabelled(admin, ns);
      assertThat(violating).hasSizeGreaterThan(STATUS_CAP).doesNotContain("labelled");
      // the audit stamps every constraint there is with each run's id, evaluated or not, and one
      // loaded part-way through a run was evaluated against part of it: the run to read is the
      // first to start after a run that found violations of the constraint
      Observed seen = awaitRun(admin, export, constraint, audit, o -> o.totalViolations() > 0);
      Observed first =
          awaitRun(
              admin,
              export,
              constraint,
              audit,
              o -> o.run().started().isAfter(seen.run().started()));
      assertThat(namesOf(first.run(), constraint)).isEqualTo(violating);
      assertThat(first.totalViolations()).isEqualTo(violating.size());
      assertThat(first.statusViolations()).isEqualTo(STATUS_CAP);
      for (ExportLine v : violationsOf(first.run(), constraint)) {
        assertThat(v.enforcementAction()).isEqualTo("deny");
        assertThat(v.resourceGroup()).isEmpty();
        assertThat(v.resourceApiVersion()).isEqualTo("v1");
        assertThat(v.resourceKind()).isEqualTo("ConfigMap");
        assertThat(v.resourceNamespace()).isEqualTo(ns);
        assertThat(v.message()).isEqualTo(v.resourceName() + " has no label " + LABEL);
      }

      // beside it, the aggregator's report of the namespace holds every violation as a failed
      // result about its resource's uid: 26 where the constraint's status holds 20
      Set<String> uids = uidsOf(admin, ns, violating);
      awaitReported(admin, audit, ns, policy, uids);
      assertThat(reported(admin, ns, policy)).hasSize(violating.size()).isEqualTo(uids);

      // one resource is fixed, another deleted: later runs retract both (the fix once two runs in a
      // row omitted it)
      admin
          .configMaps()
          .inNamespace(ns)
          .withName("unlabelled-00")
          .edit(
              c ->
                  new ConfigMapBuilder(c)
                      .editMetadata()
                      .addToLabels(LABEL, "x")
                      .endMetadata()
                      .build());
      admin.configMaps().inNamespace(ns).withName("unlabelled-01").delete();
      Set<String> left = unlabelled(admin, ns);
      // a run started after the change is one whose id (its start, RFC 3339 in whole seconds, which
      // sorts as it reads) is past every run's begun by then: the driver opens a run's file as it
      // starts
      String begun = newestRunBegun(export);
      Observed later =
          awaitRun(admin, export, constraint, audit, o -> o.run().id().compareTo(begun) > 0);
      assertThat(namesOf(later.run(), constraint)).isEqualTo(left);
      assertThat(later.totalViolations()).isEqualTo(left.size());
      awaitReported(admin, audit, ns, policy, uidsOf(admin, ns, left));

      // a run that finds what the last found writes nothing (counted from the audit log, from a
      // mark taken once what was due is written, to a marker request made after the run was
      // stated)
      controller.flushNow().get(60, TimeUnit.SECONDS);
      AuditLog log = AuditLog.of(cluster.env());
      long mark = log.mark();
      long appliedBefore = metrics.applied.get();
      String stated = newestRunBegun(export);
      Observed again =
          awaitRun(admin, export, constraint, audit, o -> o.run().id().compareTo(stated) > 0);
      assertThat(namesOf(again.run(), constraint)).isEqualTo(left);
      // stated: the aggregator's state (not what it writes) holds each result at its run's time
      await(
          audit,
          "the aggregator stated run " + again.run().id(),
          () -> {
            List<Optional<Timestamp>> times = timesOf(controller, policy);
            return times.size() == left.size()
                && times.stream().allMatch(t -> t.equals(Optional.of(again.run().started())));
          });
      assertThat(metrics.applied.get()).isGreaterThanOrEqualTo(appliedBefore + left.size());
      controller.flushNow().get(60, TimeUnit.SECONDS);
      log.awaitMarker(admin, ns);
      assertThat(
              log.since(mark).stream()
                  .filter(e -> e.resource().endsWith("policyreports"))
                  .filter(e -> !Set.of("get", "list", "watch").contains(e.verb()))
                  .map(AuditLog.Event::verbAndResource))
          .as("writes of reports after a run that found what the last found")
          .isEmpty();
      assertThat(reported(admin, ns, policy)).isEqualTo(uidsOf(admin, ns, left));
    } finally {
      admin.genericKubernetesResources(CONSTRAINTS).withName(constraint).delete();
    }
  }

  /** A finished run and what the constraint's status said of it. */
  private record Observed(AuditRun.Finished run, long totalViolations, int statusViolations) {}

  /**
   * Waits for a finished run the constraint's status names as its audit, which {@code wanted}
   * accepts with what the status says of it, and returns both.
   */
  private static Observed awaitRun(
      KubernetesClient admin,
      GatekeeperExport export,
      String constraint,
      ChildProcess audit,
      Predicate<Observed> wanted) {
    AtomicReference<Observed> found = new AtomicReference<>();
    await(
        audit,
        "a finished run of constraint " + constraint + " named by its status",
        () -> {
          GenericKubernetesResource c =
              admin.genericKubernetesResources(CONSTRAINTS).withName(constraint).get();
          Map<String, Object> status =
              c == null ? null : map(c.getAdditionalProperties(), "status");
          if (status == null || status.get("auditTimestamp") == null) {
            return false;
          }
          String id = String.valueOf(status.get("auditTimestamp"));
          for (Path file : files(export)) {
            if (GatekeeperExport.runId(file).equals(id)
                && read(file) instanceof AuditRun.Finished run
                && run.id().equals(id)) {
              Object total = status.get("totalViolations");
              Object kept = status.get("violations");
              Observed o =
                  new Observed(
                      run,
                      total instanceof Number n ? n.longValue() : -1,
                      kept instanceof List<?> l ? l.size() : -1);
              if (wanted.test(o)) {
                found.set(o);
                return true;
              }
            }
          }
          return false;
        });
    return found.get();
  }

  /** The timestamps of {@code policy}'s results in the aggregator's state. */
  private static List<Optional<Timestamp>> timesOf(AggregatorController controller, String policy) {
    try {
      return controller.desired().get(60, TimeUnit.SECONDS).stream()
          .flatMap(r -> r.results().stream())
          .filter(r -> r.policy().equals(policy))
          .map(Result::timestamp)
          .toList();
    } catch (Exception e) {
      throw new IllegalStateException("the aggregator's state cannot be read", e);
    }
  }

  /** {@link Await#until}, failing with the end of the audit's log. */
  private static void await(ChildProcess audit, String what, BooleanSupplier condition) {
    try {
      Await.until(
          what,
          () -> {
            if (!audit.isAlive()) {
              throw new AssertionError("the audit exited");
            }
            return condition.getAsBoolean();
          },
          WAIT);
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + " (the audit is "
              + (audit.isAlive() ? "running" : "gone")
              + "; its log, "
              + audit.log()
              + ", ends:\n"
              + audit.tail(30)
              + ")",
          e);
    }
  }

  /** The id of the newest run whose file the channel holds, finished or not. */
  private static String newestRunBegun(GatekeeperExport export) throws IOException {
    try (Stream<Path> files = Files.list(export.channel())) {
      return files.map(GatekeeperExport::runId).max(Comparator.naturalOrder()).orElse("");
    }
  }

  private static List<Path> files(GatekeeperExport export) {
    try {
      return export.finishedFiles();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static AuditRun read(Path file) {
    try {
      return GatekeeperExport.read(file);
    } catch (IOException e) {
      // rotated away by the driver between the listing and the read
      return new AuditRun.Unfinished("", e.toString());
    }
  }

  /** Counts the partial reports the aggregator accepted. */
  private static final class CountingApplied implements TallyMetrics {
    final AtomicLong applied = new AtomicLong();

    @Override
    public void partialApplied() {
      applied.incrementAndGet();
    }
  }

  /** Waits until the namespace's reports hold {@code uids}' failed results of {@code policy}. */
  private static void awaitReported(
      KubernetesClient admin, ChildProcess audit, String ns, String policy, Set<String> uids) {
    await(
        audit,
        "the namespace's report holds the failed results of " + uids.size() + " resources",
        () -> reported(admin, ns, policy).equals(uids));
  }

  /** {@link Reported#failingUids}. */
  private static Set<String> reported(KubernetesClient admin, String ns, String policy) {
    return Reported.failingUids(admin, ns, policy);
  }

  private static Set<String> uidsOf(KubernetesClient admin, String ns, Set<String> names) {
    Set<String> uids = new TreeSet<>();
    for (String name : names) {
      uids.add(admin.configMaps().inNamespace(ns).withName(name).get().getMetadata().getUid());
    }
    return uids;
  }

  private static List<ExportLine> violationsOf(AuditRun.Finished run, String constraint) {
    return run.violations().stream().filter(v -> v.constraintName().equals(constraint)).toList();
  }

  private static Set<String> namesOf(AuditRun.Finished run, String constraint) {
    return violationsOf(run, constraint).stream()
        .map(ExportLine::resourceName)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The names of the namespace's ConfigMaps without the label (the cluster's own included). */
  private static Set<String> unlabelled(KubernetesClient admin, String ns) {
    return admin.configMaps().inNamespace(ns).list().getItems().stream()
        .filter(
            c ->
                c.getMetadata().getLabels() == null
                    || !c.getMetadata().getLabels().containsKey(LABEL))
        .map(c -> c.getMetadata().getName())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static void configMap(
      KubernetesClient admin, String ns, String name, Map<String, String> labels) {
    admin
        .configMaps()
        .inNamespace(ns)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withData(Map.of("k", "v"))
                .build())
        .create();
  }

  /** The constraint: ConfigMaps of {@code ns} must carry the label. */
  private static GenericKubernetesResource constraint(String name, String ns) {
    GenericKubernetesResource c =
        new GenericKubernetesResourceBuilder()
            .withApiVersion("constraints.gatekeeper.sh/v1beta1")
            .withKind("TallyRequiredLabel")
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .build();
    c.setAdditionalProperty(
        "spec",
        Map.of(
            "match",
            Map.of(
                "kinds",
                List.of(Map.of("apiGroups", List.of(""), "kinds", List.of("ConfigMap"))),
                "namespaces",
                List.of(ns)),
            "parameters",
            Map.of("label", LABEL)));
    return c;
  }

  @SuppressWarnings("unchecked")
  private static @Nullable Map<String, Object> map(Map<String, Object> from, String key) {
    Object v = from.get(key);
    return v instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
