package dev.tally.aggregator.hostile;

import static dev.tally.aggregator.hostile.Dialect.KYVERNO;
import static dev.tally.aggregator.hostile.Dialect.TALLY;
import static dev.tally.aggregator.hostile.Dialect.TRIVY;

import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * Every kind of attack of the hostile tenant, one method each, registered in {@link #ALL} with the
 * inputs it applies to and, should an input's bulkhead against it be missing, the one-line reason
 * it is disabled in {@code verify}. Each step is bounded: a few requests, at most one object near
 * the server's size limit, at most a few hundred connections.
 */
final class Attacks {
  private Attacks() {}

  private static final Set<Dialect> EVERY = EnumSet.allOf(Dialect.class);

  /** The registered kinds, in the order their names are printed. */
  static final List<Attack.Kind> ALL =
      List.of(
          new Attack.Kind(
              "event-subject",
              "an evaluation about a core v1 Event, which may not own the report written for it",
              EVERY,
              Map.of(),
              Attacks::eventSubject),
          new Attack.Kind(
              "over-limits",
              "evaluations past the per-report caps: 5,001 results, or results filling ~1.2 MB",
              EVERY,
              Map.of(),
              Attacks::overLimits),
          new Attack.Kind(
              "random-metadata",
              "random labels, annotations (Tally's and Kyverno's own keys) and owner references",
              EVERY,
              Map.of(),
              Attacks::randomMetadata),
          new Attack.Kind(
              "random-kinds",
              "subjects of random kinds, apiVersions and names, with or without a uid",
              EVERY,
              Map.of(),
              Attacks::randomKinds),
          new Attack.Kind(
              "claimed-uid",
              "the victim's Pods' names and uids claimed in the tenant's namespace",
              EVERY,
              Map.of(),
              Attacks::claimedUid),
          new Attack.Kind(
              "near-size-limit",
              "objects of 1.0 to 1.7 MiB, about the API server's 1.5 MiB limit, about 8 Pods of its own",
              EVERY,
              Map.of(),
              Attacks::nearSizeLimit),
          new Attack.Kind(
              "churn",
              "create, update and delete loops of evaluations and of the Pods they are about",
              EVERY,
              Map.of(),
              Attacks::churn),
          new Attack.Kind(
              "unknown-fields",
              "deep nesting (to 3,000 levels) and large blobs in fields the schema does not name",
              EVERY,
              Map.of(),
              Attacks::unknownFields),
          new Attack.Kind(
              "many-coverage-keys",
              "a Pod covered by 16 producers, each with 1,000 to 5,000 keys, rewritten with other keys",
              EVERY,
              Map.of(),
              Attacks::manyCoverageKeys),
          new Attack.Kind(
              "far-future",
              "evaluations stamped past the allowed clock skew, to year 9999",
              EVERY,
              Map.of(),
              Attacks::farFuture),
          new Attack.Kind(
              "cross-namespace",
              "evaluations whose subject or results name the victim's namespace",
              EnumSet.of(TALLY, KYVERNO),
              Map.of(),
              Attacks::crossNamespace),
          new Attack.Kind(
              "tamper-reports",
              "the tenant's own aggregates edited (summary past int32), deleted and squatted",
              EVERY,
              Map.of(),
              Attacks::tamperReports),
          new Attack.Kind(
              "fill-caps",
              "evaluations of 4,000, up to 50 or 1 results, until the process-wide caps (scaled"
                  + " down for the run) are full to the last result",
              EVERY,
              Map.of(),
              Attacks::fillCaps),
          new Attack.Kind(
              "terminating-namespace",
              "an evaluation about a Pod in a second namespace of the tenant's, both held by"
                  + " its finalizers, and that namespace deleted: the aggregator's report there can"
                  + " never be written (403), for the rest of the run",
              EVERY,
              Map.of(),
              Attacks::terminatingNamespace),
          new Attack.Kind(
              "health-flood",
              "connections to the health port opened, half-sent, left idle and reset (<= 1,000"
                  + " held)",
              EVERY,
              Map.of(),
              Attacks::healthFlood));

  static void eventSubject(Tenant t, SplittableRandom r) {
    Subject event =
        Subject.of(
            "v1",
            "Event",
            t.ns,
            "web-" + r.nextInt(9) + "." + Long.toHexString(r.nextLong()),
            Tenant.uid(r));
    GenericKubernetesResource o =
        t.encode("event-" + r.nextInt(8), Tenant.evaluation(event, r, Tenant.now()), "admission");
    if (o == null) {
      return;
    }
    // named by its labels alone: the server refuses the object itself with an owner reference to
    // an Event, and the point is a report the aggregator would give one
    o.getMetadata().setOwnerReferences(null);
    t.write(o);
  }

  static void overLimits(Tenant t, SplittableRandom r) {
    Subject ghost = t.ghost(r);
    List<Evaluation.Finding> findings = new ArrayList<>();
    if (r.nextBoolean()) {
      for (int i = 0; i < 5_001; i++) {
        findings.add(new Evaluation.Finding("wide", "r" + i, ResultStatus.FAIL, "x"));
      }
    } else {
      String message = "m".repeat(16 * 1024 - 64);
      for (int i = 0; i < 72; i++) {
        findings.add(new Evaluation.Finding("tall", "r" + i, ResultStatus.FAIL, message + i));
      }
    }
    Set<String> policies = new TreeSet<>();
    findings.forEach(f -> policies.add(f.policy()));
    write(
        t, "over-" + r.nextInt(3), new Evaluation(ghost, policies, findings, Tenant.now()), "scan");
  }

  static void randomMetadata(Tenant t, SplittableRandom r) {
    Subject subject = r.nextBoolean() ? t.ghost(r) : t.aVictim(r);
    if (!subject.namespace().equals(t.ns)) {
      subject = Subject.of("v1", "Pod", t.ns, subject.name(), subject.uid());
    }
    GenericKubernetesResource o =
        t.encode("meta-" + r.nextInt(10), Tenant.evaluation(subject, r, Tenant.now()), "meta");
    if (o == null) {
      return;
    }
    Map<String, String> labels = new LinkedHashMap<>();
    if (o.getMetadata().getLabels() != null) {
      labels.putAll(o.getMetadata().getLabels());
    }
    Map<String, String> annotations = new LinkedHashMap<>();
    if (o.getMetadata().getAnnotations() != null) {
      annotations.putAll(o.getMetadata().getAnnotations());
    }
    List<String> ownKeys =
        List.of(
            "app.kubernetes.io/managed-by",
            "tally.dev/group",
            "tally.dev/grouping",
            "tally.dev/content-hash",
            "audit.kyverno.io/resource.uid",
            "audit.kyverno.io/resource.kind",
            "audit.kyverno.io/resource.version",
            "audit.kyverno.io/resource.group",
            "audit.kyverno.io/source",
            "cpol.kyverno.io/require-labels",
            "trivy-operator.resource.namespace");
    int n = r.nextInt(20);
    for (int i = 0; i < n; i++) {
      String key =
          r.nextBoolean()
              ? ownKeys.get(r.nextInt(ownKeys.size()))
              : "x" + r.nextInt(1000) + ".example/k";
      labels.put(key, labelValue(t, r));
    }
    List<String> ownAnnotations =
        List.of(
            "audit.kyverno.io/resource.namespace",
            "audit.kyverno.io/resource.name",
            "audit.kyverno.io/last-scan-time",
            "tally.dev/content-hash",
            "kubectl.kubernetes.io/last-applied-configuration");
    int m = r.nextInt(10);
    for (int i = 0; i < m; i++) {
      String key =
          r.nextBoolean()
              ? ownAnnotations.get(r.nextInt(ownAnnotations.size()))
              : "a" + i + ".example/v";
      String value =
          switch (r.nextInt(4)) {
            case 0 -> t.victimNs;
            case 1 -> "9999-12-31T23:59:59Z";
            case 2 -> "v".repeat(r.nextInt(64 * 1024));
            default -> t.aVictim(r).name();
          };
      annotations.put(key, value);
    }
    o.getMetadata().setLabels(labels);
    o.getMetadata().setAnnotations(annotations);
    List<io.fabric8.kubernetes.api.model.OwnerReference> owners = new ArrayList<>();
    int k = r.nextInt(4);
    for (int i = 0; i < k; i++) {
      Subject victim = t.aVictim(r);
      String[][] kinds = {
        {"v1", "Pod"},
        {"apps/v1", "ReplicaSet"},
        {"v1", "Event"},
        {"v1", "Namespace"},
        {"v1", "Node"},
        {"widgets.example.com/v1", "Widget"},
        {"v1", "Secret"}
      };
      String[] kind = kinds[r.nextInt(kinds.length)];
      owners.add(
          new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
              .withApiVersion(kind[0])
              .withKind(kind[1])
              .withName(r.nextBoolean() ? victim.name() : "owner-" + r.nextInt(10))
              .withUid(r.nextBoolean() ? victim.uid() : Tenant.uid(r))
              .withController(i == 0 && r.nextBoolean())
              .withBlockOwnerDeletion(r.nextBoolean())
              .build());
    }
    if (k > 0 || r.nextBoolean()) {
      o.getMetadata().setOwnerReferences(owners);
    }
    t.write(o);
  }

  private static String labelValue(Tenant t, SplittableRandom r) {
    return switch (r.nextInt(6)) {
      case 0 -> "tally";
      case 1 -> "kyverno";
      case 2 -> t.aVictim(r).uid();
      case 3 -> t.victimNs.length() > 63 ? "victim" : t.victimNs;
      case 4 -> "";
      default -> "-not a valid value-";
    };
  }

  static void randomKinds(Tenant t, SplittableRandom r) {
    String[][] known = {
      {"v1", "Pod"},
      {"v1", "Secret"},
      {"v1", "Namespace"},
      {"v1", "Node"},
      {"apps/v1", "Deployment"},
      {"batch/v1", "CronJob"},
      {"v1", "ServiceAccount"},
      {"rbac.authorization.k8s.io/v1", "ClusterRole"},
      {"v1", "Event"},
      {"apiextensions.k8s.io/v1", "CustomResourceDefinition"}
    };
    String apiVersion;
    String kind;
    if (r.nextInt(3) > 0) {
      String[] k = known[r.nextInt(known.length)];
      apiVersion = k[0];
      kind = k[1];
    } else {
      apiVersion = "g" + r.nextInt(1000) + ".example.com/v" + r.nextInt(9);
      kind = "K" + Long.toString(r.nextLong() & Long.MAX_VALUE, 36);
    }
    String name =
        switch (r.nextInt(3)) {
          case 0 -> "n" + r.nextInt(100);
          case 1 -> "a".repeat(253);
          default -> "dotted." + r.nextInt(100) + ".name";
        };
    String uid =
        switch (r.nextInt(3)) {
          case 0 -> "";
          case 1 -> t.aVictim(r).uid();
          default -> Tenant.uid(r);
        };
    Subject subject = Subject.of(apiVersion, kind, t.ns, name, uid);
    write(t, "kinds-" + r.nextInt(12), Tenant.evaluation(subject, r, Tenant.now()), "admission");
  }

  static void claimedUid(Tenant t, SplittableRandom r) {
    Subject victim = t.aVictim(r);
    Subject claim = Subject.of("v1", "Pod", t.ns, victim.name(), victim.uid());
    List<Evaluation.Finding> findings = new ArrayList<>();
    Set<String> policies = new TreeSet<>(Victim.POLICIES);
    for (String policy : Victim.POLICIES) {
      if (r.nextBoolean()) {
        findings.add(
            new Evaluation.Finding(
                policy,
                "check",
                r.nextBoolean() ? ResultStatus.PASS : ResultStatus.FAIL,
                "claimed"));
      }
    }
    String name = "claim-" + r.nextInt(6);
    GenericKubernetesResource o =
        t.encode(name, new Evaluation(claim, policies, findings, Tenant.now()), "victim-engine");
    if (o == null) {
      return;
    }
    if (r.nextBoolean()) {
      // no owner: nothing collects the claim
      o.getMetadata().setOwnerReferences(List.of());
    }
    t.write(o);
    if (r.nextInt(4) == 0) {
      t.delete(name);
    }
  }

  static void nearSizeLimit(Tenant t, SplittableRandom r) {
    int target = 1024 * 1024 + r.nextInt(700 * 1024);
    int each = 16 * 1024 - 64;
    List<Evaluation.Finding> findings = new ArrayList<>();
    String message = "s".repeat(each);
    for (int i = 0; i * (each + 120) < target; i++) {
      findings.add(new Evaluation.Finding("big", "r" + i, ResultStatus.FAIL, message + i));
    }
    // about Pods of the tenant's, so that what is admitted is held (a ghost's results are dropped)
    int k = r.nextInt(8);
    Subject subject = t.pod("big-" + k);
    if (subject == null) {
      return;
    }
    write(t, "big-" + k, new Evaluation(subject, Set.of("big"), findings, Tenant.now()), "scan");
  }

  static void churn(Tenant t, SplittableRandom r) {
    int n = 5 + r.nextInt(15);
    for (int i = 0; i < n; i++) {
      int which = r.nextInt(10);
      switch (r.nextInt(5)) {
        case 0 -> t.delete("churn-" + which);
        case 1 ->
            t.request(
                () ->
                    t.client
                        .pods()
                        .inNamespace(t.ns)
                        .resource(
                            new PodBuilder()
                                .withNewMetadata()
                                .withName("churn-pod-" + which)
                                .endMetadata()
                                .withNewSpec()
                                .addNewContainer()
                                .withName("app")
                                .withImage("registry.invalid/churn:1")
                                .endContainer()
                                .endSpec()
                                .build())
                        .create());
        case 2 ->
            t.request(
                () ->
                    t.client
                        .pods()
                        .inNamespace(t.ns)
                        .withName("churn-pod-" + which)
                        .withGracePeriod(0)
                        .delete());
        default -> {
          Subject subject = Subject.of("v1", "Pod", t.ns, "churn-pod-" + which, Tenant.uid(r));
          var pod = t.client.pods().inNamespace(t.ns).withName("churn-pod-" + which);
          try {
            var existing = pod.get();
            if (existing != null) {
              subject = subject.withUid(existing.getMetadata().getUid());
            }
          } catch (RuntimeException e) {
            // a GET refused counts as a ghost
          }
          write(t, "churn-" + which, Tenant.evaluation(subject, r, Tenant.now()), "churn");
        }
      }
    }
  }

  static void unknownFields(Tenant t, SplittableRandom r) throws Exception {
    GenericKubernetesResource o =
        t.encode("unknown-" + r.nextInt(5), Tenant.evaluation(t.ghost(r), r, Tenant.now()), "scan");
    if (o == null) {
      return;
    }
    String json = Serialization.asJson(o);
    String blob;
    switch (r.nextInt(3)) {
      case 0 -> {
        int depth = 10 + r.nextInt(3_000);
        blob = "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
      }
      case 1 -> {
        int depth = 10 + r.nextInt(3_000);
        blob = "[".repeat(depth) + "\"x\"" + "]".repeat(depth);
      }
      default -> blob = "\"" + "b".repeat(64 * 1024 + r.nextInt(900 * 1024)) + "\"";
    }
    String field = "\"x-hostile-" + r.nextInt(5) + "\":" + blob + ",";
    // inside the top level, or inside the input's own body (spec, or trivy's report)
    String at = t.dialect == TRIVY ? "\"report\":{" : "\"spec\":{";
    String body =
        r.nextBoolean() || !json.contains(at)
            ? "{" + field + json.substring(1)
            : json.replaceFirst(
                java.util.regex.Pattern.quote(at),
                java.util.regex.Matcher.quoteReplacement(at + field));
    t.delete(o.getMetadata().getName());
    t.post(t.collectionPath(), body);
  }

  static void manyCoverageKeys(Tenant t, SplittableRandom r) {
    int n = t.dialect == KYVERNO ? 200 + r.nextInt(800) : 1_000 + r.nextInt(4_001);
    int shift = r.nextInt(10_000);
    Set<String> policies = new TreeSet<>();
    List<Evaluation.Finding> findings = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String policy = "p" + (shift + i);
      policies.add(policy);
      if (t.dialect == TRIVY || i % 100 == 0) {
        findings.add(new Evaluation.Finding(policy, "r", ResultStatus.FAIL, "wide"));
      }
    }
    // one Pod of the tenant's (results about a Pod that does not exist are dropped) covered by up
    // to 16 producers, each with thousands of keys: tens of thousands of registers on one subject
    Subject subject = t.pod("wide");
    if (subject == null) {
      return;
    }
    int k = r.nextInt(16);
    write(t, "wide-" + k, new Evaluation(subject, policies, findings, Tenant.now()), "scan-" + k);
  }

  /**
   * Results up to the process-wide caps, which {@link HostileRun} scales down ({@value
   * HostileRun#MAX_RESULTS} results, {@value HostileRun#MAX_RESULT_BYTES} bytes of them, in all and
   * per namespace) so that one tenant namespace can fill them within a run: past them a namespace
   * over its fair share is refused, and the victim, within its share, is not (DESIGN §9.2). About
   * Pods of the tenant's that exist: results about a subject that does not are dropped once the
   * aggregator finds it gone, and would never fill anything.
   */
  static void fillCaps(Tenant t, SplittableRandom r) {
    // the tenant reads what its namespace holds from its own aggregates, then writes one object,
    // about a Pod of its own made for it, sized to take the process a few results short of the
    // cap, guessing what the victim holds (up to 4 results a Pod): the next results anyone adds
    // cross it. A guess too low overshoots and is refused, holding nothing.
    long held = t.heldResults();
    long n = HostileRun.MAX_RESULTS - Math.max(held, 0) - r.nextInt(4 * t.victims().size() + 8);
    n = n < 1 ? 1 + r.nextInt(5) : Math.min(n, 4_000);
    String name = "fill-" + t.filled.incrementAndGet();
    Subject subject = t.pod(name);
    if (subject == null) {
      return;
    }
    List<Evaluation.Finding> findings = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      findings.add(new Evaluation.Finding("fill", "r" + i, ResultStatus.FAIL, "fill"));
    }
    write(t, name, new Evaluation(subject, Set.of("fill"), findings, Tenant.now()), "scan");
  }

  /** The finalizer the tenant holds its objects with in the namespace it has deleted. */
  static final String HOLD = "tenant.example/hold";

  static void terminatingNamespace(Tenant t, SplittableRandom r) {
    Tenant.Leaving leaving = t.leaving;
    if (t.left.get()) {
      return; // once a run: the namespace is terminating, and stays so to the end
    }
    Pod held =
        new PodBuilder()
            .withNewMetadata()
            .withName("held")
            .withNamespace(leaving.ns())
            .withFinalizers(HOLD)
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .withImage("registry.invalid/held:1")
            .endContainer()
            .endSpec()
            .build();
    t.write(leaving.client(), held);
    Pod[] stored = new Pod[1];
    t.request(
        () -> stored[0] = leaving.client().pods().inNamespace(leaving.ns()).withName("held").get());
    if (stored[0] == null) {
      return; // tried again at its next step
    }
    Subject subject =
        Subject.of("v1", "Pod", leaving.ns(), "held", stored[0].getMetadata().getUid());
    GenericKubernetesResource o =
        t.dialect.encode(leaving.ns(), "held", Tenant.evaluation(subject, r, Tenant.now()), "scan");
    o.getMetadata().setFinalizers(List.of(HOLD));
    t.write(leaving.client(), o);
    leaving.deleteNamespace().run();
    t.left.set(true);
    t.count("namespace deleted");
  }

  static void farFuture(Tenant t, SplittableRandom r) {
    long seconds =
        r.nextBoolean()
            ? Timestamp.MAX_SECONDS - r.nextInt(1000)
            : Tenant.now().seconds() + 3600 + r.nextInt(100_000);
    Subject subject = r.nextBoolean() ? t.ghost(r) : t.aVictim(r);
    subject = Subject.of("v1", "Pod", t.ns, subject.name(), subject.uid());
    write(
        t,
        "future-" + r.nextInt(4),
        Tenant.evaluation(subject, r, Timestamp.ofSeconds(seconds)),
        "future");
  }

  static void crossNamespace(Tenant t, SplittableRandom r) {
    Subject victim = t.aVictim(r);
    GenericKubernetesResource o;
    if (r.nextBoolean()) {
      // a report in the tenant's namespace about the victim's Pod in its own namespace
      o =
          t.encode(
              "cross-" + r.nextInt(4), Tenant.evaluation(victim, r, Tenant.now()), "admission");
    } else {
      // about a ghost, with a result naming the victim's Pod
      o =
          t.encode(
              "cross-" + r.nextInt(4), Tenant.evaluation(t.ghost(r), r, Tenant.now()), "admission");
      if (o != null) {
        Object spec = o.getAdditionalProperties().get("spec");
        if (spec instanceof Map<?, ?> m
            && m.get("results") instanceof List<?> results
            && !results.isEmpty()) {
          @SuppressWarnings("unchecked")
          Map<String, Object> first = new LinkedHashMap<>((Map<String, Object>) results.get(0));
          first.put(
              "resources",
              List.of(
                  Map.of(
                      "apiVersion",
                      "v1",
                      "kind",
                      "Pod",
                      "namespace",
                      t.victimNs,
                      "name",
                      victim.name(),
                      "uid",
                      victim.uid())));
          List<Object> copy = new ArrayList<>(results);
          copy.set(0, first);
          @SuppressWarnings("unchecked")
          Map<String, Object> specCopy = new LinkedHashMap<>((Map<String, Object>) m);
          specCopy.put("results", copy);
          o.getAdditionalProperties().put("spec", specCopy);
        }
      }
    }
    if (o != null) {
      t.write(o);
    }
  }

  static void tamperReports(Tenant t, SplittableRandom r) {
    var reports = t.client.resources(PolicyReportResource.class).inNamespace(t.ns);
    List<PolicyReportResource> mine = new ArrayList<>();
    t.request(() -> mine.addAll(reports.list().getItems()));
    if (mine.isEmpty() || r.nextInt(4) == 0) {
      // a report of its own at a name of its choosing, labelled as Tally's or Kyverno's
      Map<String, Object> squat = new LinkedHashMap<>();
      squat.put("apiVersion", "wgpolicyk8s.io/v1alpha2");
      squat.put("kind", "PolicyReport");
      squat.put(
          "metadata",
          Map.of(
              "name",
              r.nextBoolean() ? "tally-" + t.ns : "squat-" + r.nextInt(5),
              "namespace",
              t.ns,
              "labels",
              Map.of("app.kubernetes.io/managed-by", r.nextBoolean() ? "tally" : "kyverno")));
      squat.put("summary", Map.of("pass", 1L << 33, "fail", 0));
      squat.put("results", List.of());
      t.request(
          () ->
              t.client
                  .resource(Dialect.generic(squat))
                  .fieldManager("tenant")
                  .forceConflicts()
                  .serverSideApply());
      return;
    }
    PolicyReportResource target = mine.get(r.nextInt(mine.size()));
    if (r.nextInt(3) == 0) {
      t.request(() -> reports.withName(target.getMetadata().getName()).delete());
      return;
    }
    GenericKubernetesResource edited = Dialect.generic(target);
    edited.getMetadata().setManagedFields(null);
    edited
        .getAdditionalProperties()
        .put("summary", Map.of("pass", 0, "fail", (1L << 31) + r.nextInt(1000)));
    edited.getAdditionalProperties().put("results", List.of());
    t.request(() -> t.client.resource(edited).update());
  }

  static void healthFlood(Tenant t, SplittableRandom r) throws Exception {
    int n = 50 + r.nextInt(350);
    byte[] half = "GET /healthz HTTP/1.1\r\nHost: 127".getBytes(StandardCharsets.US_ASCII);
    byte[] whole =
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < n; i++) {
      int mode = r.nextInt(5);
      if (mode == 4) {
        t.release(true);
        t.count("reset");
        continue;
      }
      Socket s;
      try {
        s = t.connect();
      } catch (java.io.IOException e) {
        t.count("refused");
        continue;
      }
      t.count("connected");
      try {
        OutputStream out = s.getOutputStream();
        switch (mode) {
          case 0 -> out.write(half);
          case 1 -> out.write(whole); // sent whole, its answer never read
          case 2 -> out.write(new byte[] {'G'});
          default -> {
            // idle: a connection that never sends
          }
        }
        out.flush();
      } catch (java.io.IOException e) {
        t.count("closed-by-server");
      }
    }
  }

  private static void write(Tenant t, String name, Evaluation e, String producer) {
    GenericKubernetesResource o = t.encode(name, e, producer);
    if (o != null) {
      t.write(o);
    }
  }
}
