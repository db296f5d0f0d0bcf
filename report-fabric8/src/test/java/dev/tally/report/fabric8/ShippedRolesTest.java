package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.audit.UnitBackoff;
import dev.tally.report.fabric8.audit.AuditMember;
import dev.tally.report.fabric8.audit.AuditTarget;
import dev.tally.report.fabric8.audit.RealAuditTest;
import dev.tally.report.fabric8.kyverno.KyvernoCodec;
import dev.tally.report.fabric8.kyverno.KyvernoInput;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.trivy.TrivyInput;
import dev.tally.report.fabric8.trivy.TrivyInputRealServerTest;
import dev.tally.testenv.AuditLog;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every rule of every ClusterRole Tally ships ({@link TallyResources#RBAC}, {@link
 * TallyResources#KYVERNO_RBAC}, {@link TrivyInput#rbacYaml()}; deploy/ and the chart hold copies)
 * is used, and nothing beyond them is granted, on the real control plane (issue 19, "roles grant
 * only what is used").
 *
 * <p>Each role is bound as deploy/ binds it (the cluster-wide ones with ClusterRoleBindings, the
 * Lease and coordination ones with a RoleBinding in the test's namespace) to a ServiceAccount, and
 * the component that role is for runs as that account and does what it is for: the aggregator (both
 * report formats, update and server-side apply, leader election, a rejection), a producer (publish,
 * update, adoption that expires), Kyverno's aggregator (both lifecycles, both formats, adoption of
 * every adoption kind, a rejection, deleted orphans), trivy's aggregator (both formats, update and
 * server-side apply, leader election, a rejection) and an audit member (a run with a failed unit,
 * old manifests and statuses, an orphaned Lease). Then the API server's audit log must show, for
 * every verb of every rule (and every resource name of a named rule), a request of that verb by
 * that account on that resource that the authorizer let through; and SubjectAccessReviews as each
 * account must allow each grant and refuse every verb not granted on those resources, Secrets,
 * {@code nodes/proxy}, {@code pods/exec}, and Leases in another namespace or of another name.
 */
@ExtendWith(RealKubernetes.class)
class ShippedRolesTest {
  /** The verbs a role can grant on a resource, for the refusals. */
  private static final List<String> VERBS =
      List.of("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection");

  private static final long T0 = 1_900_000_000L;

  /** The scenario's times are in 2030, as RealKyvernoTest's: the aggregators accept them. */
  private static final Duration SCENARIO_SKEW = Duration.ofDays(36_500);

  /** One verb a role grants on one resource (and one name, for a named rule). */
  record Grant(String role, String group, String resource, String verb, @Nullable String name) {
    @Override
    public String toString() {
      return role
          + ": "
          + verb
          + " "
          + (group.isEmpty() ? resource : resource + "." + group)
          + (name == null ? "" : " named " + name);
    }
  }

  /** One request of the audit log. */
  record Request(
      String user,
      String verb,
      String group,
      String resource,
      String subresource,
      String namespace,
      String name,
      int code) {}

  private RealKubernetes.Cluster cluster;
  private long mark;
  private final List<ClusterRole> roles = new ArrayList<>();

  @Test
  void everyRuleOfEveryShippedRoleIsUsedAndNothingBeyondThemIsGranted(
      RealKubernetes.Cluster cluster) throws Exception {
    this.cluster = cluster;
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    RealServer.installCrds(admin);
    RealKyvernoTest.installKyvernoCrds(admin);
    TrivyInputRealServerTest.installTrivyCrd(admin);
    installPolicyStandIns(admin);
    for (String yaml :
        List.of(
            TallyResources.rbacYaml(), TallyResources.kyvernoRbacYaml(), TrivyInput.rbacYaml())) {
      for (HasMetadata item :
          admin.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items()) {
        roles.add((ClusterRole) item);
        admin.resource(item).createOr(existing -> existing.update());
      }
    }
    String reader = cluster.clusterRole("podtemplate-reader", RealAuditTest.READS_POD_TEMPLATES);
    assertThat(roles)
        .extracting(r -> r.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "tally-aggregator",
            "tally-aggregator-lease",
            "tally-producer",
            "tally-audit-member",
            "tally-audit-coordination",
            "tally-kyverno-aggregator",
            "tally-kyverno-aggregator-lease",
            "tally-trivy-aggregator",
            "tally-trivy-aggregator-lease");

    // the accounts, bound as deploy/ and the READMEs bind them
    KubernetesClient aggregator = cluster.serviceAccount("aggregator", "tally-aggregator");
    bindInNamespace(admin, ns, "aggregator", "tally-aggregator-lease");
    KubernetesClient producer = cluster.serviceAccount("producer", "tally-producer");
    KubernetesClient kyverno = cluster.serviceAccount("kyverno", "tally-kyverno-aggregator");
    bindInNamespace(admin, ns, "kyverno", "tally-kyverno-aggregator-lease");
    KubernetesClient trivy =
        TrivyInputRealServerTest.reading(cluster.serviceAccount("trivy", "tally-trivy-aggregator"));
    bindInNamespace(admin, ns, "trivy", "tally-trivy-aggregator-lease");
    KubernetesClient auditor = cluster.serviceAccount("audit", "tally-audit-member", reader);
    bindInNamespace(admin, ns, "audit", "tally-audit-coordination");
    Map<String, String> accountOf =
        Map.of(
            "tally-aggregator", "aggregator",
            "tally-aggregator-lease", "aggregator",
            "tally-producer", "producer",
            "tally-kyverno-aggregator", "kyverno",
            "tally-kyverno-aggregator-lease", "kyverno",
            "tally-trivy-aggregator", "trivy",
            "tally-trivy-aggregator-lease", "trivy",
            "tally-audit-member", "audit",
            "tally-audit-coordination", "audit");

    // the role's adoption kinds are the default of --adoption-kinds, no more, no less
    assertThat(
            grants(role(roles, "tally-kyverno-aggregator")).stream()
                .filter(g -> g.verb().equals("get"))
                .filter(g -> !g.group().endsWith("wgpolicyk8s.io"))
                .filter(g -> !g.group().equals("openreports.io"))
                .map(g -> g.group().isEmpty() ? g.resource() : g.resource() + "." + g.group())
                .toList())
        .containsExactlyInAnyOrderElementsOf(KyvernoInput.DEFAULT_ADOPTION_KINDS);

    // what earlier tests left in namespaces being deleted would be written to, and refused there
    RealServer.awaitOnlyOwnPartials(admin, ns);
    Await.until(
        "the intermediate reports of earlier tests are gone",
        () ->
            admin
                    .genericKubernetesResources(KyvernoInput.EPHEMERAL)
                    .inAnyNamespace()
                    .list()
                    .getItems()
                    .isEmpty()
                && admin
                    .genericKubernetesResources(KyvernoInput.CLUSTER_EPHEMERAL)
                    .list()
                    .getItems()
                    .isEmpty(),
        Duration.ofSeconds(180));
    mark = RealServer.auditMark(cluster);
    try {
      mainAggregatorAndProducer(admin, ns, aggregator, producer);
      kyvernoAggregator(admin, ns, kyverno);
      trivyAggregator(admin, ns, trivy);
      auditMember(admin, ns, auditor);
    } finally {
      trivy.close();
      uninstallPolicyStandIns(admin);
    }
    // read once the log holds a marker request made after the components ran (for the refusals
    // and the Secret reads, expected to be none) and a request for each grant (bounded)
    RealServer.awaitAuditMarker(cluster);
    Map<String, List<Grant>> grantsOf = new TreeMap<>();
    for (ClusterRole role : roles) {
      grantsOf
          .computeIfAbsent(accountOf.get(role.getMetadata().getName()), a -> new ArrayList<>())
          .addAll(grants(role));
    }
    List<Request> requests = awaitUsed(grantsOf);

    // 1. every verb of every rule is a request its account made, and was let through
    List<String> unused = new ArrayList<>();
    for (ClusterRole role : roles) {
      String user =
          "system:serviceaccount:" + ns + ":" + accountOf.get(role.getMetadata().getName());
      unused.addAll(unused(requests, user, grants(role)));
    }
    assertThat(unused).as("granted, but no request of the component needed it").isEmpty();

    // 2. the components needed nothing they were refused
    Set<String> accounts = new TreeSet<>(accountOf.values());
    List<Request> refused =
        requests.stream()
            .filter(r -> r.code() == 403)
            .filter(r -> r.namespace().isEmpty() || r.namespace().equals(ns))
            .filter(
                r ->
                    accounts.stream()
                        .anyMatch(a -> r.user().equals("system:serviceaccount:" + ns + ":" + a)))
            .toList();
    assertThat(refused).as("requests of the components that were refused").isEmpty();
    // the Secret an admission report named was never asked for
    assertThat(requests)
        .filteredOn(r -> r.resource().equals("secrets"))
        .filteredOn(r -> r.user().endsWith(":kyverno"))
        .isEmpty();

    // 3. the authorizer allows each grant, and nothing else of what matters
    List<String> wrong = new ArrayList<>();
    for (ClusterRole role : roles) {
      String account = accountOf.get(role.getMetadata().getName());
      for (Grant g : grants(role)) {
        expect(admin, ns, account, wrong, true, g.verb(), g.group(), g.resource(), ns, g.name());
      }
    }
    for (String account : accounts) {
      Set<Grant> granted = new java.util.HashSet<>();
      Set<List<String>> resources = new java.util.LinkedHashSet<>();
      for (ClusterRole role : roles) {
        if (accountOf.get(role.getMetadata().getName()).equals(account)) {
          for (Grant g : grants(role)) {
            granted.add(new Grant("", g.group(), g.resource(), g.verb(), null));
            resources.add(List.of(g.group(), g.resource()));
          }
        }
      }
      for (List<String> resource : resources) {
        for (String verb : VERBS) {
          if (!granted.contains(new Grant("", resource.get(0), resource.get(1), verb, null))) {
            expect(
                admin, ns, account, wrong, false, verb, resource.get(0), resource.get(1), ns, null);
          }
        }
      }
      for (String verb : List.of("get", "list", "watch")) {
        expect(admin, ns, account, wrong, false, verb, "", "secrets", ns, "db");
        expect(admin, ns, account, wrong, false, verb, "", "secrets", "kube-system", null);
      }
      expect(admin, ns, account, wrong, false, "get", "", "nodes/proxy", null, "node-1");
      expect(admin, ns, account, wrong, false, "create", "", "nodes/proxy", null, "node-1");
      expect(admin, ns, account, wrong, false, "create", "", "pods/exec", ns, "web-0");
      expect(admin, ns, account, wrong, false, "get", "", "pods/log", ns, "web-0");
      for (String verb : List.of("get", "create", "update", "patch", "delete")) {
        expect(
            admin,
            ns,
            account,
            wrong,
            false,
            verb,
            "coordination.k8s.io",
            "leases",
            "kube-system",
            "kube-controller-manager");
        expect(
            admin,
            ns,
            account,
            wrong,
            false,
            verb,
            "coordination.k8s.io",
            "leases",
            "kube-node-lease",
            "node-1");
      }
    }
    // the Lease roles: their own Lease only, and only where bound
    for (String[] lease :
        new String[][] {
          {"aggregator", "tally-aggregator"},
          {"kyverno", "tally-kyverno-aggregator"},
          {"trivy", "tally-trivy-aggregator"}
        }) {
      for (String verb : List.of("get", "update", "patch")) {
        expect(
            admin, ns, lease[0], wrong, false, verb, "coordination.k8s.io", "leases", ns, "other");
      }
      expect(
          admin,
          ns,
          lease[0],
          wrong,
          false,
          "create",
          "coordination.k8s.io",
          "leases",
          "default",
          null);
      expect(
          admin,
          ns,
          lease[0],
          wrong,
          false,
          "get",
          "coordination.k8s.io",
          "leases",
          "default",
          lease[1]);
    }
    assertThat(wrong).as("the authorizer's answers that differ from what is expected").isEmpty();
  }

  /** The grants no request of {@code user} in {@code requests} used. */
  private static List<String> unused(List<Request> requests, String user, List<Grant> grants) {
    List<String> out = new ArrayList<>();
    for (Grant g : grants) {
      boolean used =
          requests.stream()
              .anyMatch(
                  r ->
                      r.user().equals(user)
                          && r.verb().equals(g.verb())
                          && r.group().equals(g.group())
                          && r.resource().equals(g.resource())
                          && r.subresource().isEmpty()
                          && (g.name() == null || g.name().equals(r.name()))
                          && r.code() != 401
                          && r.code() != 403);
      if (!used) {
        out.add(g.toString());
      }
    }
    return out;
  }

  /**
   * Waits until the audit log shows a request of {@code account} for each of {@code grants}; gives
   * up quietly after a minute (the final check names what is missing).
   */
  private void awaitUsed(String account, List<Grant> grants) {
    awaitUsed(Map.of(account, grants));
  }

  /**
   * Waits until the audit log shows a request of each account for each of its grants; gives up
   * quietly after a minute (the final check names what is missing). Returns the requests last read.
   */
  private List<Request> awaitUsed(Map<String, List<Grant>> grantsOf) {
    List<Request> last = new ArrayList<>();
    int[] polls = {0};
    try {
      Await.until(
          grantsOf.keySet() + " used each of their grants",
          () -> {
            // the audit log is long: read it on one poll in fifty (Await polls every 10 ms)
            if (polls[0]++ % 50 != 0) {
              return false;
            }
            List<Request> requests = requests(cluster, mark);
            last.clear();
            last.addAll(requests);
            return grantsOf.entrySet().stream()
                .allMatch(
                    e ->
                        unused(
                                requests,
                                "system:serviceaccount:" + cluster.namespace() + ":" + e.getKey(),
                                e.getValue())
                            .isEmpty());
          },
          Duration.ofSeconds(60));
    } catch (AssertionError e) {
      // reported by the caller's check, with every grant not used
    }
    return last;
  }

  // ---------------------------------------------------------------------------- the components

  /**
   * The aggregator in both formats, with update and with server-side apply, each a leader that
   * creates, updates and deletes a namespaced and a cluster-scoped aggregate and releases its
   * Lease; a producer publishes, updates, and has two unadopted reports expire.
   */
  private void mainAggregatorAndProducer(
      KubernetesClient admin, String ns, KubernetesClient aggregator, KubernetesClient producer)
      throws Exception {
    String nsUid = admin.namespaces().withName(ns).get().getMetadata().getUid();
    Subject namespace = Subject.of("v1", "Namespace", "", ns, nsUid);
    int run = 0;
    try (PartialReportPublisher publisher =
        PartialReportPublisher.builder(producer)
            .adoptionGrace(Duration.ofMillis(1))
            .subjectResolver(subject -> Optional.empty()) // the producer role reads no subjects
            .build()) {
      for (ReportFormat format : ReportFormat.values()) {
        for (boolean ssa : new boolean[] {false, true}) {
          run++;
          CountingMetrics metrics = new CountingMetrics();
          Subject pod = RealServer.subject(admin, ns, "main-" + run);
          try (AggregatorController controller =
              AggregatorController.builder(aggregator)
                  .aggregator(
                      () ->
                          ReportAggregator.builder()
                              .grouping(Grouping.perSubject())
                              .format(format)
                              .build())
                  .flushWindow(Duration.ZERO)
                  .maxClockSkew(SCENARIO_SKEW)
                  .maxClockSkew(SCENARIO_SKEW)
                  .serverSideApply(ssa)
                  .metrics(metrics)
                  .leaderElection(lease(ns, "tally-aggregator", "replica-" + run))
                  .build()
                  .start()) {
            Await.until(
                "run " + run + " leads and has rebuilt",
                () -> controller.isLeading() && controller.isRebuilt(),
                Duration.ofSeconds(60));
            publish(publisher, "scanner", pod, ResultStatus.FAIL, T0 + run * 10L);
            publish(publisher, "scanner", namespace, ResultStatus.FAIL, T0 + run * 10L);
            List<ReportRef> refs = awaitReportsAbout(controller, admin, Set.of(pod, namespace));
            String verb = ssa ? "apply" : "update";
            int before = metrics.writes.getOrDefault(verb, 0);
            publish(publisher, "scanner", pod, ResultStatus.PASS, T0 + run * 10L + 1);
            publish(publisher, "scanner", namespace, ResultStatus.PASS, T0 + run * 10L + 1);
            Await.until(
                "run " + run + " rewrote both aggregates",
                () -> metrics.writes.getOrDefault(verb, 0) >= before + 2);
            if (run == 1) {
              rejectedPartialReport(admin, ns);
            }
            // the subjects' evaluations go: so do their aggregates
            deletePartials(admin, ns, "scanner");
            Await.until(
                "run " + run + " deleted both aggregates",
                () -> refs.stream().allMatch(r -> read(admin, r) == null),
                Duration.ofSeconds(60));
          } // close: releases the Lease with an update
        }
      }
      // a report the producer wrote before this publisher's time: created again, it reads it
      Subject web = RealServer.subject(admin, ns, "web");
      PartialReport earlier =
          PartialReport.builder()
              .producer("webhook")
              .subject(web)
              .results(List.of(RealServer.fail("require-labels")))
              .observedAt(Timestamp.ofSeconds(T0 - 100))
              .build();
      admin
          .resource(
              ReportCodec.encodePartial(earlier, PartialReportPublisher.objectName("webhook", web)))
          .create();
      publish(publisher, "webhook", web, ResultStatus.PASS, T0);
      // a producer's reports whose subjects never appear: adoption lists and deletes them
      publish(
          publisher, "webhook", Subject.of("v1", "Pod", ns, "never", ""), ResultStatus.FAIL, T0);
      publish(
          publisher,
          "webhook",
          Subject.of("v1", "Namespace", "", "never-" + ns, ""),
          ResultStatus.FAIL,
          T0);
      int[] removed = {0};
      Await.until(
          "adoption removed both unadopted reports",
          () -> (removed[0] += publisher.adoptPending().removed()) >= 2);
    }
  }

  /** Leader election on Lease {@code name} in {@code ns}, short enough for a test. */
  private static LeaderElectionSettings lease(String ns, String name, String identity) {
    return new LeaderElectionSettings(
        ns, name, identity, Duration.ofSeconds(4), Duration.ofSeconds(3), Duration.ofMillis(300));
  }

  /**
   * trivy-operator's config audit reports aggregated in both formats, with update and with
   * server-side apply, under leader election: a scanned ConfigMap's report written, rescanned
   * (rewritten), rejected once (an Event), and deleted (its aggregate deleted). The cluster-scoped
   * aggregate kinds are only listed: a config audit report is namespaced.
   */
  private void trivyAggregator(KubernetesClient admin, String ns, KubernetesClient account)
      throws Exception {
    int run = 0;
    for (ReportFormat format : ReportFormat.values()) {
      for (boolean ssa : new boolean[] {false, true}) {
        run++;
        CountingMetrics metrics = new CountingMetrics();
        var scanned =
            admin
                .configMaps()
                .inNamespace(ns)
                .resource(
                    new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("trivy-scanned-" + run)
                        .endMetadata()
                        .build())
                .create();
        Subject subject =
            Subject.of(
                "v1",
                "ConfigMap",
                ns,
                scanned.getMetadata().getName(),
                scanned.getMetadata().getUid());
        String name = "configmap-trivy-scanned-" + run;
        var reports =
            admin.genericKubernetesResources(TrivyInput.CONFIG_AUDIT_REPORTS).inNamespace(ns);
        reports
            .resource(
                TrivyInputRealServerTest.report(
                    ns,
                    name,
                    scanned,
                    "2030-01-01T0" + run + ":00:00Z",
                    List.of(TrivyInputRealServerTest.check("KSV01010", "HIGH"))))
            .create();
        try (AggregatorController controller =
            AggregatorController.builder(account)
                .aggregator(
                    () ->
                        ReportAggregator.builder()
                            .grouping(Grouping.perSubject())
                            .format(format)
                            .input("trivy")
                            .build())
                .input(new TrivyInput())
                .flushWindow(Duration.ZERO)
                .maxClockSkew(SCENARIO_SKEW)
                .serverSideApply(ssa)
                .metrics(metrics)
                .leaderElection(lease(ns, "tally-trivy-aggregator", "trivy-replica-" + run))
                .build()
                .start()) {
          Await.until(
              "trivy run " + run + " leads and has rebuilt",
              () -> controller.isLeading() && controller.isRebuilt(),
              Duration.ofSeconds(60));
          List<ReportRef> refs = awaitReportsAbout(controller, admin, Set.of(subject));
          String verb = ssa ? "apply" : "update";
          int before = metrics.writes.getOrDefault(verb, 0);
          // the rescan finds another check failing
          String rescanned = "2030-01-01T0" + run + ":30:00Z";
          reports
              .withName(name)
              .edit(
                  r -> {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> report =
                        (Map<String, Object>) r.getAdditionalProperties().get("report");
                    report.put("updateTimestamp", rescanned);
                    report.put(
                        "checks", List.of(TrivyInputRealServerTest.check("KSV01011", "LOW")));
                    return r;
                  });
          Await.until(
              "trivy run " + run + " rewrote the aggregate",
              () -> metrics.writes.getOrDefault(verb, 0) >= before + 1);
          if (run == 1) {
            // a severity trivy's schema lets through: refused, with an Event
            var other =
                admin
                    .configMaps()
                    .inNamespace(ns)
                    .resource(
                        new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("trivy-refused")
                            .endMetadata()
                            .build())
                    .create();
            reports
                .resource(
                    TrivyInputRealServerTest.report(
                        ns,
                        "configmap-trivy-refused",
                        other,
                        "2030-01-01T00:00:00Z",
                        List.of(TrivyInputRealServerTest.check("KSV01010", "SEVERE"))))
                .create();
            TrivyInputRealServerTest.awaitRejection(admin, ns, "report.checks[0].severity");
            reports.withName("configmap-trivy-refused").delete();
          }
          // the report goes: so does its aggregate
          reports.withName(name).delete();
          Await.until(
              "trivy run " + run + " deleted the aggregate",
              () -> refs.stream().allMatch(r -> read(admin, r) == null),
              Duration.ofSeconds(60));
        } // close: releases the Lease with an update
      }
    }
  }

  /**
   * Kyverno's aggregator in both lifecycles and both formats, with update and with server-side
   * apply: background reports merged (and deleted after merging), admission reports adopted (kept:
   * the owner reference written), owned orphans deleted at the rebuild, a rejected report, and
   * admission reports naming each adoption kind and a Secret.
   */
  private void kyvernoAggregator(KubernetesClient admin, String ns, KubernetesClient account)
      throws Exception {
    var namespace = admin.namespaces().withName(ns).get();
    // the policies the reports name exist (the policy watch hides the results of others)
    for (String policy : List.of("require-labels", "require-ns-owner")) {
      KyvernoPolicyWatchTest.create(admin, KyvernoPolicyWatchTest.clusterPolicy(policy));
    }
    int run = 0;
    for (boolean keep : new boolean[] {false, true}) {
      for (ReportFormat format : ReportFormat.values()) {
        run++;
        boolean ssa = keep; // kept: server-side apply; deleted after merge: update
        CountingMetrics metrics = new CountingMetrics();
        List<HasMetadata> orphans = new ArrayList<>();
        if (keep) {
          orphans.add(kyvernoLayoutReport(admin, format, ns, "orphan-" + run));
          orphans.add(kyvernoLayoutReport(admin, format, "", "orphan-" + run));
        }
        KyvernoInput input =
            (keep ? KyvernoInput.keep() : KyvernoInput.deleteAfterMerge())
                .withAdoptionRetry(Duration.ofMillis(200))
                .withAdoptionGrace(Duration.ofMinutes(10));
        var pod = MockCluster.pod(admin, ns, "k-" + run);
        try (AggregatorController controller =
            AggregatorController.builder(account)
                .aggregator(
                    () ->
                        ReportAggregator.builder()
                            .grouping(Grouping.kyvernoPerResource())
                            .format(format)
                            .build())
                .input(input)
                .flushWindow(Duration.ZERO)
                .maxClockSkew(SCENARIO_SKEW)
                .serverSideApply(ssa)
                .metrics(metrics)
                .leaderElection(lease(ns, "tally-kyverno-aggregator", "kyverno-" + run))
                .build()
                .start()) {
          Await.until(
              "Kyverno run " + run + " leads and has rebuilt",
              () -> controller.isLeading() && controller.isRebuilt(),
              Duration.ofSeconds(60));
          for (HasMetadata orphan : orphans) {
            Await.until(
                "the orphan " + orphan.getMetadata().getName() + " is deleted",
                () -> admin.resource(orphan).get() == null);
          }
          // a background scan of the pod, then a later one; one of the namespace
          admin
              .resource(
                  RealKyvernoTest.backgroundReport(
                      ns,
                      pod,
                      T0 + run,
                      Map.of(
                          "require-labels",
                          List.of(
                              RealKyvernoTest.result("require-labels", "c", "fail", T0 + run)))))
              .create();
          String verb = ssa ? "apply" : "create";
          Await.until(
              "Kyverno run " + run + " wrote the pod's report",
              () -> metrics.writes.getOrDefault(verb, 0) >= 1);
          if (!keep) {
            RealKyvernoTest.awaitNoIntermediateReports(admin, ns);
          } else {
            admin
                .genericKubernetesResources(KyvernoInput.EPHEMERAL)
                .inNamespace(ns)
                .withName(pod.getMetadata().getUid() + "-b")
                .delete();
          }
          admin
              .resource(
                  RealKyvernoTest.backgroundReport(
                      ns,
                      pod,
                      T0 + run + 100,
                      Map.of(
                          "require-labels",
                          List.of(
                              RealKyvernoTest.result(
                                  "require-labels", "c", "pass", T0 + run + 100)))))
              .create();
          String again = ssa ? "apply" : "update";
          Await.until(
              "Kyverno run " + run + " rewrote the pod's report",
              () -> metrics.writes.getOrDefault(again, 0) >= (ssa ? 2 : 1));
          var clusterReport = RealKyvernoTest.clusterBackgroundReport(namespace, T0 + run);
          admin.resource(clusterReport).createOr(existing -> existing.update());
          Await.until(
              "Kyverno run " + run + " wrote the namespace's report",
              () -> read(admin, kyvernoRef(format, "", namespace.getMetadata().getUid())) != null);
          if (keep) {
            // admission reports without a uid: adopted, the owner reference written onto them
            var admission =
                RealKyvernoTest.admissionReport(
                    ns,
                    "adopt-" + run,
                    "Pod",
                    "",
                    "v1",
                    pod.getMetadata().getName(),
                    null,
                    T0 + run + 200,
                    Map.of(
                        "require-labels",
                        List.of(
                            RealKyvernoTest.result(
                                "require-labels", "c", "pass", T0 + run + 200))));
            admin.resource(admission).create();
            GenericKubernetesResource clusterAdmission = clusterAdmission(ns, "adopt-" + run);
            admin.resource(clusterAdmission).create();
            Await.until(
                "Kyverno run " + run + " adopted both admission reports",
                () -> adopted(admin, admission) && adopted(admin, clusterAdmission),
                Duration.ofSeconds(60));
            admin.resource(admission).delete();
            admin.resource(clusterAdmission).delete();
            // the namespace's last report goes: so does its per-resource report
            admin.resource(clusterReport).delete();
            Await.until(
                "Kyverno run " + run + " deleted the namespace's report",
                () ->
                    read(admin, kyvernoRef(format, "", namespace.getMetadata().getUid())) == null);
          } else {
            Await.until(
                "Kyverno run " + run + " deleted the merged cluster report",
                () -> admin.resource(clusterReport).get() == null);
            // a later scan of the namespace with another verdict: its report is updated
            int updates = metrics.writes.getOrDefault("update", 0);
            admin
                .resource(
                    RealKyvernoTest.clusterBackgroundReport(namespace, T0 + run + 100, "pass"))
                .create();
            Await.until(
                "Kyverno run " + run + " rewrote the namespace's report",
                () -> metrics.writes.getOrDefault("update", 0) > updates);
            RealKyvernoTest.awaitNoIntermediateReports(admin, ns);
          }
          if (run == 1) {
            rejectedIntermediateReport(admin, ns);
            ghosts(admin, ns, controller);
          }
        }
        // the next run starts from nothing of this one's
        admin.resource(RealKyvernoTest.clusterBackgroundReport(namespace, T0)).delete();
        for (ReportRef ref :
            List.of(
                kyvernoRef(format, ns, pod.getMetadata().getUid()),
                kyvernoRef(format, "", namespace.getMetadata().getUid()))) {
          deleteReport(admin, ref);
        }
      }
    }
  }

  /**
   * An audit member's run: it plans (old manifests and statuses of the group deleted, an orphaned
   * Lease deleted), audits PodTemplates and Namespaces (one object of each fails its evaluation, so
   * each unit turns stale and its reports are marked), updates reports it wrote before, and leaves
   * the group.
   */
  private void auditMember(KubernetesClient admin, String ns, KubernetesClient client)
      throws Exception {
    String group = "roles";
    for (String name : List.of("pt-0", "pt-1")) {
      admin
          .resource(
              new PodTemplateBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withNamespace(ns)
                  .endMetadata()
                  .withNewTemplate()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("c")
                  .withImage("registry.invalid/c:1")
                  .endContainer()
                  .endSpec()
                  .endTemplate()
                  .build())
          .create();
    }
    // what an earlier run left: a manifest, another member's status, an orphaned Lease
    admin
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("tally-audit-roles-run-1")
                .withNamespace(ns)
                .withLabels(
                    Map.of(WireNames.AUDIT_GROUP_LABEL, group, WireNames.AUDIT_EPOCH_LABEL, "1"))
                .endMetadata()
                .withData(Map.of("plan", "{}"))
                .build())
        .create();
    admin
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("tally-audit-roles-status-gone")
                .withNamespace(ns)
                .withLabels(
                    Map.of(
                        WireNames.AUDIT_GROUP_LABEL, group, WireNames.AUDIT_MEMBER_LABEL, "gone"))
                .endMetadata()
                .withData(Map.of("run", "old"))
                .build())
        .create();
    admin
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("tally-audit-roles-gone")
                .withNamespace(ns)
                .withLabels(Map.of(WireNames.AUDIT_GROUP_LABEL, group))
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("gone")
                .withLeaseDurationSeconds(3)
                .withRenewTime(
                    ZonedDateTime.ofInstant(
                        Instant.now().minus(Duration.ofDays(1)), ZoneOffset.UTC))
                .endSpec()
                .build())
        .create();
    String failing = ns; // its own namespace fails the evaluation: the Namespace unit turns stale
    CoverageKey policy = CoverageKey.of("tally-test", "require-team-label");
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(client).build()) {
      AuditMember member =
          AuditMember.builder(client)
              .group(group)
              .member("m-1")
              .namespace(ns)
              .targets(
                  List.of(
                      AuditTarget.namespaced("", "v1", "PodTemplate", "podtemplates"),
                      AuditTarget.clusterScoped("", "v1", "Namespace", "namespaces")))
              .policies(Set.of(policy))
              .evaluator(
                  object -> {
                    if (object.getMetadata().getName().equals(failing)
                        || object.getMetadata().getName().equals("pt-1")) {
                      throw new IllegalStateException("this object fails its evaluation");
                    }
                    return List.of(
                        Result.builder()
                            .source(policy.source())
                            .policy(policy.policy())
                            .rule("check")
                            .status(ResultStatus.PASS)
                            .message("ok")
                            .build());
                  })
              .publisher(publisher)
              .interval(Duration.ofHours(1))
              .leaseDuration(Duration.ofSeconds(3))
              .staleAfterAttempts(1)
              .unitBackoff(new UnitBackoff(Duration.ofMillis(100), Duration.ofMillis(500)))
              .build();
      // a report this member's producer wrote before, about each kind: the run updates them
      String producer = member.producer();
      var pt0 = admin.v1().podTemplates().inNamespace(ns).withName("pt-0").get();
      var own = admin.namespaces().withName(ns).get();
      for (Subject s :
          List.of(
              Subject.of("v1", "PodTemplate", ns, "pt-0", pt0.getMetadata().getUid()),
              Subject.of("v1", "Namespace", "", ns, own.getMetadata().getUid()))) {
        PartialReport earlier =
            PartialReport.builder()
                .producer(producer)
                .subject(s)
                .coverage(Set.of(policy))
                .results(List.of())
                .observedAt(Timestamp.ofSeconds(1_600_000_000L))
                .build();
        admin
            .resource(
                ReportCodec.encodePartial(earlier, PartialReportPublisher.objectName(producer, s)))
            .create();
      }
      try {
        member.start(executor, Duration.ofMillis(100));
        // two units fail and turn stale, so the run never completes: wait for what it does
        List<Grant> audit = new ArrayList<>(grants(role(roles, "tally-audit-member")));
        audit.addAll(grants(role(roles, "tally-audit-coordination")));
        awaitUsed("audit", audit);
      } finally {
        executor.shutdownNow();
        member.close(); // leaves: deletes its Lease
      }
      Await.until(
          "the member's Lease is gone",
          () -> admin.leases().inNamespace(ns).withName("tally-audit-roles-m-1").get() == null);
    } finally {
      // the Namespace unit published about every namespace: remove those reports (other tests
      // wait for no ClusterPartialReport to be left)
      for (var r : admin.resources(ClusterPartialReportResource.class).list().getItems()) {
        admin.resource(r).delete();
      }
      Await.until(
          "no ClusterPartialReport is left",
          () -> admin.resources(ClusterPartialReportResource.class).list().getItems().isEmpty());
    }
  }

  // ------------------------------------------------------------------------------------ helpers

  /** Admission reports naming an object of each adoption kind (none exists) and a Secret. */
  private void ghosts(KubernetesClient admin, String ns, AggregatorController controller)
      throws Exception {
    Map<String, String[]> kinds = new TreeMap<>();
    kinds.put("pods", new String[] {"", "v1", "Pod"});
    kinds.put("services", new String[] {"", "v1", "Service"});
    kinds.put("configmaps", new String[] {"", "v1", "ConfigMap"});
    kinds.put("serviceaccounts", new String[] {"", "v1", "ServiceAccount"});
    kinds.put("persistentvolumeclaims", new String[] {"", "v1", "PersistentVolumeClaim"});
    kinds.put("replicationcontrollers", new String[] {"", "v1", "ReplicationController"});
    kinds.put("deployments", new String[] {"apps", "v1", "Deployment"});
    kinds.put("replicasets", new String[] {"apps", "v1", "ReplicaSet"});
    kinds.put("statefulsets", new String[] {"apps", "v1", "StatefulSet"});
    kinds.put("daemonsets", new String[] {"apps", "v1", "DaemonSet"});
    kinds.put("jobs", new String[] {"batch", "v1", "Job"});
    kinds.put("cronjobs", new String[] {"batch", "v1", "CronJob"});
    kinds.put("ingresses", new String[] {"networking.k8s.io", "v1", "Ingress"});
    kinds.put("networkpolicies", new String[] {"networking.k8s.io", "v1", "NetworkPolicy"});
    kinds.put("secrets", new String[] {"", "v1", "Secret"});
    List<GenericKubernetesResource> created = new ArrayList<>();
    for (var e : kinds.entrySet()) {
      String[] gvk = e.getValue();
      GenericKubernetesResource report =
          RealKyvernoTest.admissionReport(
              ns,
              "ghost-" + e.getKey(),
              gvk[2],
              gvk[0],
              gvk[1],
              "ghost",
              null,
              T0,
              Map.of(
                  "require-labels",
                  List.of(RealKyvernoTest.result("require-labels", "c", "fail", T0))));
      report
          .getMetadata()
          .getLabels()
          .put(
              KyvernoCodec.GVR_LABEL,
              e.getKey() + "." + gvk[1] + (gvk[0].isEmpty() ? "" : "." + gvk[0]));
      created.add(admin.resource(report).create());
    }
    GenericKubernetesResource namespaceGhost = clusterAdmission("ghost-" + ns, "ghost");
    created.add(admin.resource(namespaceGhost).create());
    // each is looked up (404) at the next adoption pass; the Secret never (checked by the caller)
    controller.flushNow().get(60, TimeUnit.SECONDS);
    awaitUsed(
        "kyverno",
        grants(role(roles, "tally-kyverno-aggregator")).stream()
            .filter(g -> g.verb().equals("get"))
            .filter(g -> !Set.of("wgpolicyk8s.io", "openreports.io").contains(g.group()))
            .toList());
    for (GenericKubernetesResource r : created) {
      admin.resource(r).delete();
    }
  }

  /** A ClusterEphemeralReport of Kyverno's admission controller about a Namespace, no uid. */
  private static GenericKubernetesResource clusterAdmission(String namespaceName, String request) {
    Map<String, Object> object = new LinkedHashMap<>();
    object.put("apiVersion", "reports.kyverno.io/v1");
    object.put("kind", "ClusterEphemeralReport");
    Map<String, String> labels = new TreeMap<>();
    labels.put("app.kubernetes.io/managed-by", "kyverno");
    labels.put("audit.kyverno.io/source", "admission");
    labels.put("audit.kyverno.io/resource.group", "");
    labels.put("audit.kyverno.io/resource.version", "v1");
    labels.put("audit.kyverno.io/resource.kind", "Namespace");
    labels.put("audit.kyverno.io/resource.gvr", "namespaces.v1");
    labels.put("cpol.kyverno.io/require-ns-owner", "1");
    object.put(
        "metadata",
        Map.of(
            "name",
            (request + "-" + namespaceName).toLowerCase(Locale.ROOT),
            "labels",
            labels,
            "annotations",
            Map.of("audit.kyverno.io/resource.name", namespaceName)));
    object.put(
        "spec",
        Map.of(
            "owner", Map.of("apiVersion", "", "kind", "", "name", "", "uid", ""),
            "results",
                List.of(RealKyvernoTest.result("require-ns-owner", "check", "fail", T0 + 300))));
    return Serialization.unmarshal(Serialization.asJson(object), GenericKubernetesResource.class);
  }

  private static boolean adopted(KubernetesClient admin, GenericKubernetesResource report) {
    GenericKubernetesResource now = admin.resource(report).get();
    return now != null
        && now.getMetadata().getOwnerReferences() != null
        && !now.getMetadata().getOwnerReferences().isEmpty();
  }

  /** An intermediate report Kyverno could not have written (no kind label): an Event. */
  private static void rejectedIntermediateReport(KubernetesClient admin, String ns) {
    GenericKubernetesResource bad =
        RealKyvernoTest.admissionReport(
            ns,
            "bad",
            "Pod",
            "",
            "v1",
            "web",
            "0000-bad",
            T0,
            Map.of(
                "require-labels",
                List.of(RealKyvernoTest.result("require-labels", "c", "fail", T0))));
    bad.getMetadata().getLabels().remove("audit.kyverno.io/resource.kind");
    admin.resource(bad).create();
    awaitRejectedEvent(admin, ns, "bad-r");
    admin.resource(bad).delete();
  }

  /** A partial report in {@code ns} about a subject in another namespace: an Event. */
  private static void rejectedPartialReport(KubernetesClient admin, String ns) {
    PartialReport elsewhere =
        PartialReport.builder()
            .producer("intruder")
            .subject(Subject.of("v1", "Pod", "elsewhere", "web", "0000-elsewhere"))
            .results(List.of(RealServer.fail("require-labels")))
            .observedAt(Timestamp.ofSeconds(T0))
            .build();
    var resource = ReportCodec.encodePartial(elsewhere, "intruder-web");
    resource.getMetadata().setNamespace(ns);
    admin.resource(resource).create();
    awaitRejectedEvent(admin, ns, "intruder-web");
    admin.resource(resource).delete();
  }

  private static void awaitRejectedEvent(KubernetesClient admin, String ns, String object) {
    Await.until(
        "a Rejected event about " + object,
        () ->
            admin.v1().events().inNamespace(ns).list().getItems().stream()
                .anyMatch(
                    e ->
                        "Rejected".equals(e.getReason())
                            && object.equals(e.getInvolvedObject().getName())));
  }

  private static void publish(
      PartialReportPublisher publisher,
      String producer,
      Subject subject,
      ResultStatus status,
      long seconds)
      throws Exception {
    publisher
        .publish(
            PartialReport.builder()
                .producer(producer)
                .subject(subject)
                .results(
                    List.of(
                        Result.builder()
                            .source("kyverno")
                            .policy("require-labels")
                            .rule("check")
                            .status(status)
                            .message("label 'team'")
                            .build()))
                .observedAt(Timestamp.ofSeconds(seconds))
                .build())
        .get(120, TimeUnit.SECONDS);
  }

  /** The refs of the aggregates about {@code subjects}, once each is in the cluster. */
  private static List<ReportRef> awaitReportsAbout(
      AggregatorController controller, KubernetesClient admin, Set<Subject> subjects) {
    List<ReportRef> refs = new ArrayList<>();
    Await.until(
        "the aggregates about " + subjects + " are written",
        () -> {
          refs.clear();
          List<AggregateReport> desired;
          try {
            desired = controller.desired().get(60, TimeUnit.SECONDS);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          for (AggregateReport r : desired) {
            if (r.scope().isPresent() && subjects.contains(r.scope().get())) {
              refs.add(r.ref());
            }
          }
          return refs.size() == subjects.size()
              && refs.stream().allMatch(ref -> read(admin, ref) != null);
        },
        Duration.ofSeconds(60));
    return List.copyOf(refs);
  }

  private static @Nullable HasMetadata read(KubernetesClient admin, ReportRef ref) {
    var op = admin.resources(ReportCodec.resourceClass(ref.kind()));
    return ref.namespace().isEmpty()
        ? op.withName(ref.name()).get()
        : op.inNamespace(ref.namespace()).withName(ref.name()).get();
  }

  private static void deleteReport(KubernetesClient admin, ReportRef ref) {
    var op = admin.resources(ReportCodec.resourceClass(ref.kind()));
    if (ref.namespace().isEmpty()) {
      op.withName(ref.name()).delete();
    } else {
      op.inNamespace(ref.namespace()).withName(ref.name()).delete();
    }
  }

  /** The name Kyverno's layout gives the report about the resource of {@code uid}. */
  private static ReportRef kyvernoRef(ReportFormat format, String namespace, String uid) {
    var kinds =
        format == ReportFormat.WGPOLICY
            ? List.of(
                dev.tally.report.api.ReportKind.POLICY_REPORT,
                dev.tally.report.api.ReportKind.CLUSTER_POLICY_REPORT)
            : List.of(
                dev.tally.report.api.ReportKind.REPORT,
                dev.tally.report.api.ReportKind.CLUSTER_REPORT);
    return new ReportRef(namespace.isEmpty() ? kinds.get(1) : kinds.get(0), namespace, uid);
  }

  /**
   * A report in Kyverno's layout about a resource that does not exist, created as the cluster
   * admin: kept intermediate reports are the state, so the rebuild deletes it.
   */
  private static HasMetadata kyvernoLayoutReport(
      KubernetesClient admin, ReportFormat format, String ns, String name) {
    ReportAggregator aggregator =
        ReportAggregator.builder().grouping(Grouping.kyvernoPerResource()).format(format).build();
    Subject subject =
        ns.isEmpty()
            ? Subject.of("v1", "Namespace", "", name, "0000-" + name + "-c")
            : Subject.of("v1", "Pod", ns, name, "0000-" + name);
    aggregator.apply(
        PartialReport.builder()
            .producer("kyverno")
            .subject(subject)
            .results(List.of(RealServer.fail("require-labels")))
            .observedAt(Timestamp.ofSeconds(T0))
            .build());
    AggregateReport report = aggregator.aggregates().get(0);
    var resource = ReportCodec.encode(report);
    resource.getMetadata().setOwnerReferences(null); // else the garbage collector takes it
    return admin.resource(resource).create();
  }

  private static void deletePartials(KubernetesClient admin, String ns, String producer) {
    for (var r : admin.resources(PartialReportResource.class).inNamespace(ns).list().getItems()) {
      if (ReportCodec.decodePartial(r).producer().equals(producer)) {
        admin.resource(r).delete();
      }
    }
    for (var r : admin.resources(ClusterPartialReportResource.class).list().getItems()) {
      if (ReportCodec.decodePartial(r).producer().equals(producer)) {
        admin.resource(r).delete();
      }
    }
  }

  /** Every verb of every rule of {@code role}, per group, resource and resource name. */
  static List<Grant> grants(ClusterRole role) {
    List<Grant> out = new ArrayList<>();
    for (PolicyRule rule : role.getRules()) {
      assertThat(rule.getNonResourceURLs()).as("no non-resource rule").isNullOrEmpty();
      List<@Nullable String> names =
          rule.getResourceNames() == null || rule.getResourceNames().isEmpty()
              ? java.util.Collections.singletonList(null)
              : new ArrayList<>(rule.getResourceNames());
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          assertThat(group + "/" + resource)
              .as("%s: no wildcard, no subresource", role.getMetadata().getName())
              .doesNotContain("*")
              .matches("[^/]*/[^/]+");
          for (String verb : rule.getVerbs()) {
            assertThat(verb).isNotEqualTo("*");
            for (String name : names) {
              out.add(new Grant(role.getMetadata().getName(), group, resource, verb, name));
            }
          }
        }
      }
    }
    return out;
  }

  private static ClusterRole role(List<ClusterRole> roles, String name) {
    return roles.stream()
        .filter(r -> r.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  /** The requests after {@code mark} of the audit log, a watch counted as it starts. */
  private static List<Request> requests(RealKubernetes.Cluster cluster, long mark) {
    List<Request> out = new ArrayList<>();
    for (AuditLog.Event e : AuditLog.of(cluster.env()).sinceWithWatches(mark)) {
      if (e.resource().isEmpty()) {
        continue; // discovery and other non-resource requests
      }
      out.add(
          new Request(
              e.user(),
              e.verb(),
              e.apiGroup(),
              e.resource(),
              e.subresource(),
              e.namespace(),
              e.name(),
              e.code()));
    }
    return out;
  }

  private static void expect(
      KubernetesClient admin,
      String ns,
      String account,
      List<String> wrong,
      boolean allowed,
      String verb,
      String group,
      String resource,
      @Nullable String namespace,
      @Nullable String name) {
    String user = "system:serviceaccount:" + ns + ":" + account;
    String[] parts = resource.split("/", 2);
    var review =
        new SubjectAccessReviewBuilder()
            .withNewSpec()
            .withUser(user)
            .withGroups(
                List.of(
                    "system:serviceaccounts",
                    "system:serviceaccounts:" + ns,
                    "system:authenticated"))
            .withNewResourceAttributes()
            .withVerb(verb)
            .withGroup(group)
            .withResource(parts[0])
            .withSubresource(parts.length > 1 ? parts[1] : null)
            .withNamespace(namespace)
            .withName(name)
            .endResourceAttributes()
            .endSpec()
            .build();
    boolean actual =
        Boolean.TRUE.equals(
            admin
                .authorization()
                .v1()
                .subjectAccessReview()
                .create(review)
                .getStatus()
                .getAllowed());
    if (actual != allowed) {
      wrong.add(
          String.format(
              "%s %s %s in %s named %s: %s, expected %s",
              account,
              verb,
              group.isEmpty() ? resource : resource + "." + group,
              namespace == null ? "(cluster)" : namespace,
              name == null ? "(any)" : name,
              actual ? "allowed" : "denied",
              allowed ? "allowed" : "denied"));
    }
  }

  private static void bindInNamespace(
      KubernetesClient admin, String ns, String account, String clusterRole) {
    admin
        .rbac()
        .roleBindings()
        .inNamespace(ns)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName(account + "-" + clusterRole)
                .withNamespace(ns)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", clusterRole)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(account)
                .withNamespace(ns)
                .endSubject()
                .build())
        .create();
  }

  /** Stand-ins for Kyverno's policy CRDs: kyverno.io's two and policies.kyverno.io's eight. */
  private static List<CustomResourceDefinition> policyStandIns() {
    List<CustomResourceDefinition> crds = new ArrayList<>(KyvernoPolicyWatchTest.standInCrds());
    for (String kind :
        List.of(
            "ValidatingPolicy",
            "NamespacedValidatingPolicy",
            "ImageValidatingPolicy",
            "NamespacedImageValidatingPolicy",
            "GeneratingPolicy",
            "NamespacedGeneratingPolicy",
            "MutatingPolicy",
            "NamespacedMutatingPolicy")) {
      String plural = kind.toLowerCase(Locale.ROOT).replaceAll("y$", "ies");
      crds.add(
          new CustomResourceDefinitionBuilder()
              .withNewMetadata()
              .withName(plural + ".policies.kyverno.io")
              .endMetadata()
              .withNewSpec()
              .withGroup("policies.kyverno.io")
              .withScope(kind.startsWith("Namespaced") ? "Namespaced" : "Cluster")
              .withNewNames()
              .withKind(kind)
              .withPlural(plural)
              .withSingular(kind.toLowerCase(Locale.ROOT))
              .withListKind(kind + "List")
              .endNames()
              .addNewVersion()
              .withName("v1")
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
              .build());
    }
    return crds;
  }

  private static void installPolicyStandIns(KubernetesClient admin) {
    for (CustomResourceDefinition crd : policyStandIns()) {
      admin.resource(crd).createOr(existing -> existing.update());
    }
    Await.until(
        "the stand-in policy kinds are served",
        () -> {
          try {
            for (CustomResourceDefinition crd : policyStandIns()) {
              String apiVersion = crd.getSpec().getGroup() + "/v1";
              var op =
                  admin.genericKubernetesResources(apiVersion, crd.getSpec().getNames().getKind());
              if (crd.getSpec().getScope().equals("Namespaced")) {
                op.inAnyNamespace().list();
              } else {
                op.list();
              }
            }
            return true;
          } catch (KubernetesClientException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }

  private static void uninstallPolicyStandIns(KubernetesClient admin) {
    for (CustomResourceDefinition crd : policyStandIns()) {
      admin.resource(crd).delete();
    }
  }
}
