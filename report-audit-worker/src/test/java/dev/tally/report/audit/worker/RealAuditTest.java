package dev.tally.report.audit.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.audit.AuditBudget;
import dev.tally.report.audit.UnitBackoff;
import dev.tally.report.audit.UnitStatus;
import dev.tally.report.fabric8.TallyResources;
import dev.tally.report.fabric8.client.ApiBudget;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The distributed audit on a real control plane: three members, each a service account bound only
 * to Tally's audit ClusterRoles (and a role that may list the audited kind), coordinate over real
 * Leases in real time. One is killed mid-unit (its thread dies, its client is closed, its Lease is
 * never released); the other two take its work over when its Lease expires and the run completes:
 * every object evaluated, none twice.
 */
@ExtendWith(RealKubernetes.class)
public class RealAuditTest {
  /** PodTemplates per generated namespace: uneven, and nothing else in the cluster makes them. */
  private static final int[] TEMPLATES = {24, 6, 15, 9, 12};

  /**
   * The rules of a ClusterRole that lets a member read what it audits (the built-in view omits this
   * kind).
   */
  public static final List<PolicyRule> READS_POD_TEMPLATES =
      List.of(
          new PolicyRuleBuilder()
              .withApiGroups("")
              .withResources("podtemplates")
              .withVerbs("get", "list")
              .build());

  /** Evaluations, counted over all members, after which the member doing the next one dies. */
  private static final int KILL_AFTER = 10;

  @Test
  void threeMembersOverRealLeasesCompleteTheRunWhenOneIsKilledMidUnit(
      RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrdsAndRoles(admin);
    String reader = cluster.clusterRole("podtemplate-reader", READS_POD_TEMPLATES);
    String ns = cluster.namespace();
    Map<String, Boolean> expected = new HashMap<>(); // namespace/name -> has a team label
    List<String> namespaces = new ArrayList<>();
    for (int n = 0; n < TEMPLATES.length; n++) {
      String name = ns + "-a" + n;
      namespaces.add(name);
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
      for (int i = 0; i < TEMPLATES[n]; i++) {
        boolean team = i % 3 != 0;
        admin
            .resources(io.fabric8.kubernetes.api.model.PodTemplate.class)
            .inNamespace(name)
            .resource(
                new PodTemplateBuilder()
                    .withNewMetadata()
                    .withName("t-" + i)
                    .withLabels(team ? Map.of("team", "t" + i) : Map.of())
                    .endMetadata()
                    .withNewTemplate()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("app")
                    .withImage("example.com/app:1")
                    .endContainer()
                    .endSpec()
                    .endTemplate()
                    .build())
            .create();
        expected.put(name + "/t-" + i, team);
      }
    }

    AtomicInteger evaluations = new AtomicInteger();
    AtomicReference<String> killed = new AtomicReference<>();
    Map<String, KubernetesClient> clients = new LinkedHashMap<>();
    Map<String, AuditMember> members = new LinkedHashMap<>();
    List<PartialReportPublisher> publishers = new ArrayList<>();
    ScheduledExecutorService executor = Executors.newScheduledThreadPool(3);
    try {
      for (String id : List.of("m-a", "m-b", "m-c")) {
        KubernetesClient client =
            cluster.serviceAccount("audit-" + id, "tally-audit-member", reader);
        bindCoordination(admin, ns, "audit-" + id);
        clients.put(id, client);
        PartialReportPublisher publisher =
            PartialReportPublisher.builder(client).budget(ApiBudget.of(200, 200)).build();
        publishers.add(publisher);
        AuditEvaluator evaluator =
            object -> {
              if (id.equals(killed.get())
                  || (evaluations.incrementAndGet() > KILL_AFTER
                      && killed.compareAndSet(null, id))) {
                throw new DistributedAuditTest.MemberKilled(); // its scheduled ticks end here
              }
              return AuditCluster.evaluate(object);
            };
        members.put(
            id,
            AuditMember.builder(client)
                .group("real")
                .member(id)
                .namespace(ns)
                .targets(List.of(AuditTarget.namespaced("", "v1", "PodTemplate", "podtemplates")))
                .policies(Set.of(AuditCluster.POLICY))
                .evaluator(evaluator)
                .publisher(publisher)
                .groupBudget(new AuditBudget(200, 200))
                .interval(Duration.ofHours(1))
                .leaseDuration(Duration.ofSeconds(3))
                .unitBackoff(new UnitBackoff(Duration.ofMillis(200), Duration.ofSeconds(2)))
                .build());
      }
      for (AuditMember m : members.values()) {
        m.start(executor, Duration.ofMillis(100));
      }

      Await.until(
          "a member is killed mid-run", () -> killed.get() != null, Duration.ofSeconds(120));
      String dead = killed.get();
      clients.get(dead).close(); // abruptly: no leave, no release, in-flight requests fail
      List<AuditMember> alive =
          members.entrySet().stream()
              .filter(e -> !e.getKey().equals(dead))
              .map(Map.Entry::getValue)
              .toList();

      Await.until(
          "the two live members complete the run",
          () -> alive.stream().allMatch(AuditMember::runComplete),
          Duration.ofSeconds(180));

      var ledger = alive.get(0).ledger();
      assertThat(ledger.statuses().values()).allMatch(UnitStatus::isDone);
      int objects = expected.size();
      assertThat(
              ledger.statuses().entrySet().stream()
                  .filter(s -> ours(s.getKey(), namespaces))
                  .mapToLong(s -> s.getValue().objects())
                  .sum())
          .as("every generated object counted once in the ledger")
          .isEqualTo(objects);
      Map<String, Long> byMember =
          ledger.statuses().entrySet().stream()
              .filter(s -> ours(s.getKey(), namespaces))
              .collect(Collectors.groupingBy(s -> s.getValue().member(), Collectors.counting()));
      assertThat(byMember.keySet())
          .as("units finished, by member: %s", byMember)
          .containsAnyOf(alive.get(0).member(), alive.get(1).member());

      Map<String, ResultStatus> published = new HashMap<>();
      for (String name : namespaces) {
        for (var r :
            admin.resources(PartialReportResource.class).inNamespace(name).list().getItems()) {
          PartialReport e = ReportCodec.decodePartial(r);
          if (!e.producer().startsWith("audit/")) {
            continue;
          }
          assertThat(e.results()).hasSize(1);
          ResultStatus before =
              published.put(
                  e.subject().namespace() + "/" + e.subject().name(), e.results().get(0).status());
          assertThat(before).as("one partial report per object").isNull();
        }
      }
      assertThat(published).as("every object evaluated").hasSize(objects);
      for (var entry : expected.entrySet()) {
        assertThat(published.get(entry.getKey()))
            .as(entry.getKey())
            .isEqualTo(entry.getValue() ? ResultStatus.PASS : ResultStatus.FAIL);
      }
    } finally {
      executor.shutdownNow();
      members.forEach(
          (id, m) -> {
            if (!id.equals(killed.get())) {
              m.close();
            }
          });
      publishers.forEach(PartialReportPublisher::close);
      for (String name : namespaces) {
        admin.namespaces().withName(name).delete();
      }
    }
  }

  /** Whether a ledger's unit id ({@code PodTemplate.v1.core_<namespace>}) is a generated one. */
  private static boolean ours(String unitId, List<String> namespaces) {
    return namespaces.stream().anyMatch(n -> unitId.endsWith("_" + n));
  }

  private static synchronized void installCrdsAndRoles(KubernetesClient admin) {
    for (var crd : TallyResources.crds()) {
      admin.resource(crd).createOr(existing -> existing.update());
    }
    for (HasMetadata role :
        admin
            .load(
                new ByteArrayInputStream(
                    TallyResources.rbacYaml().getBytes(StandardCharsets.UTF_8)))
            .items()) {
      admin.resource(role).createOr(existing -> existing.update());
    }
    Await.until(
        "partial reports are served",
        () -> {
          try {
            admin.resources(PartialReportResource.class).inAnyNamespace().list();
            return true;
          } catch (RuntimeException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }

  /** Binds {@code tally-audit-coordination} to the account in the audit's namespace only. */
  private static void bindCoordination(KubernetesClient admin, String ns, String account) {
    admin
        .rbac()
        .roleBindings()
        .inNamespace(ns)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName(account + "-coordination")
                .withNamespace(ns)
                .endMetadata()
                .withNewRoleRef(
                    "rbac.authorization.k8s.io", "ClusterRole", "tally-audit-coordination")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(account)
                .withNamespace(ns)
                .endSubject()
                .build())
        .create();
  }
}
