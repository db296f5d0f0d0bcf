package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.ShippedRoles.Grant;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.testenv.AuditLog;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The check that every rule of the ClusterRoles an input ships is used and nothing beyond them is
 * granted, on the real control plane (issue 19, "roles grant only what is used"). Each module
 * checks the roles of its own jar with it, driving its own component: {@code ShippedRolesTest}
 * Tally's own roles (the aggregator's, the producer's, the audit's) and trivy's, report-kyverno's
 * {@code KyvernoRolesTest} Kyverno's.
 *
 * <p>A test installs the roles ({@link #install}), binds each to a ServiceAccount as deploy/ binds
 * it (the cluster-wide ones with ClusterRoleBindings, the Lease and coordination ones with a
 * RoleBinding in the test's namespace, {@link #bindInNamespace}), says whose each role is ({@link
 * #bind}) and which Lease an account's Lease role is for ({@link #lease}), marks the audit log
 * ({@link #start}), runs each component as its account doing what it is for, and calls {@link
 * #verify}: the API server's audit log must then show, for every verb of every rule (and every
 * resource name of a named rule), a request of that verb by that account on that resource that the
 * authorizer let through, no request of those accounts refused; and SubjectAccessReviews as each
 * account must allow each grant and refuse every verb not granted on those resources, Secrets,
 * {@code nodes/proxy}, {@code pods/exec}, and Leases in another namespace or of another name.
 */
public final class ShippedRoles {
  /** The verbs a role can grant on a resource, for the refusals. */
  private static final List<String> VERBS =
      List.of("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection");

  /** The scenarios' times, in 2030 (the aggregators accept them, given {@link #SCENARIO_SKEW}). */
  public static final long T0 = 1_900_000_000L;

  /** The scenarios' times are in 2030, as RealKyvernoTest's: the aggregators accept them. */
  public static final Duration SCENARIO_SKEW = Duration.ofDays(36_500);

  /** One verb a role grants on one resource (and one name, for a named rule). */
  public record Grant(
      String role, String group, String resource, String verb, @Nullable String name) {
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
  public record Request(
      String user,
      String verb,
      String group,
      String resource,
      String subresource,
      String namespace,
      String name,
      int code) {}

  private final RealKubernetes.Cluster cluster;
  private long mark;
  private final List<ClusterRole> roles = new ArrayList<>();
  private final Map<String, String> accountOf = new TreeMap<>();
  private final Map<String, String> leaseOf = new TreeMap<>();

  public ShippedRoles(RealKubernetes.Cluster cluster) {
    this.cluster = cluster;
  }

  /** Creates or replaces the ClusterRoles of {@code yaml}, to be checked. */
  public void install(String yaml) {
    install(yaml, null);
  }

  /**
   * Creates or replaces those of the ClusterRoles of {@code yaml} named in {@code names} (a file
   * that holds the roles of several components, each checked by its own module), to be checked.
   */
  public void install(String yaml, @Nullable Set<String> names) {
    KubernetesClient admin = cluster.admin();
    for (HasMetadata item :
        admin.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items()) {
      if (names == null || names.contains(item.getMetadata().getName())) {
        roles.add((ClusterRole) item);
        admin.resource(item).createOr(existing -> existing.update());
      }
    }
  }

  /** The names of the roles installed. */
  public List<String> roleNames() {
    return roles.stream().map(r -> r.getMetadata().getName()).toList();
  }

  /**
   * {@code account} (a ServiceAccount of the test's namespace) is the one bound to {@code roles}.
   */
  public void bind(String account, String... roleNames) {
    for (String role : roleNames) {
      accountOf.put(role, account);
    }
  }

  /** {@code account}'s Lease role is for the Lease {@code name} of the test's namespace only. */
  public void lease(String account, String name) {
    leaseOf.put(account, name);
  }

  /** Marks the audit log: the components' requests are those after it. */
  public void start() {
    mark = RealServer.auditMark(cluster);
  }

  /** The grants of the installed role {@code name}. */
  public List<Grant> grants(String name) {
    return grants(role(roles, name));
  }

  /**
   * The three checks once the components ran; the requests of the audit log since {@link #start},
   * for a test's own checks.
   */
  public List<Request> verify() {
    // a Lease role's account says which Lease it is for: else its "only that Lease" goes unchecked
    for (ClusterRole role : roles) {
      String name = role.getMetadata().getName();
      if (name.endsWith("-lease")) {
        assertThat(leaseOf)
            .as("the Lease of %s's account (ShippedRoles.lease)", name)
            .containsKey(accountOf.get(name));
      }
    }
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    // read once the log holds a marker request made after the components ran (for the refusals,
    // expected to be none) and a request for each grant (bounded)
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
    for (var held : leaseOf.entrySet()) {
      String[] lease = {held.getKey(), held.getValue()};
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
    return requests;
  }

  /**
   * Waits until the audit log shows a request of {@code account} for each of {@code grants}; gives
   * up quietly after a minute (the final check names what is missing).
   */
  public void awaitUsed(String account, List<Grant> grants) {
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

  /** Every verb of every rule of {@code role}, per group, resource and resource name. */
  public static List<Grant> grants(ClusterRole role) {
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

  public static void bindInNamespace(
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

  // ------------------------------------------------------- what the components' drivers share

  /** Leader election on Lease {@code name} in {@code ns}, short enough for a test. */
  public static LeaderElectionSettings leaderElection(String ns, String name, String identity) {
    return new LeaderElectionSettings(
        ns, name, identity, Duration.ofSeconds(4), Duration.ofSeconds(3), Duration.ofMillis(300));
  }

  /** The refs of the aggregates about {@code subjects}, once each is in the cluster. */
  public static List<ReportRef> awaitReportsAbout(
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

  public static @Nullable HasMetadata read(KubernetesClient admin, ReportRef ref) {
    var op = admin.resources(ReportCodec.resourceClass(ref.kind()));
    return ref.namespace().isEmpty()
        ? op.withName(ref.name()).get()
        : op.inNamespace(ref.namespace()).withName(ref.name()).get();
  }

  public static void deleteReport(KubernetesClient admin, ReportRef ref) {
    var op = admin.resources(ReportCodec.resourceClass(ref.kind()));
    if (ref.namespace().isEmpty()) {
      op.withName(ref.name()).delete();
    } else {
      op.inNamespace(ref.namespace()).withName(ref.name()).delete();
    }
  }

  public static void awaitRejectedEvent(KubernetesClient admin, String ns, String object) {
    Await.until(
        "a Rejected event about " + object,
        () ->
            admin.v1().events().inNamespace(ns).list().getItems().stream()
                .anyMatch(
                    e ->
                        "Rejected".equals(e.getReason())
                            && object.equals(e.getInvolvedObject().getName())));
  }
}
