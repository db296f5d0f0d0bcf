package dev.tally.report.fabric8;

import static dev.tally.report.fabric8.RealServer.controllerOn;
import static dev.tally.report.fabric8.RealServer.installCrds;
import static dev.tally.report.fabric8.RealServer.publishFailure;
import static dev.tally.report.fabric8.RealServer.results;
import static dev.tally.report.fabric8.RealServer.subject;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.Subject;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Suspected ways for one object a tenant can write to freeze the aggregator for every namespace,
 * proved or refuted on a real kube-apiserver: values the server stores although the schema's {@code
 * format: int32} says they cannot be (it does not enforce the format), a name at the length limit,
 * and nesting deeper than a JSON reader's limit.
 */
@ExtendWith(RealKubernetes.class)
class RealServerBadObjectsTest {
  static final ResourceDefinitionContext PARTIAL_REPORTS =
      new ResourceDefinitionContext.Builder()
          .withGroup("tally.dev")
          .withVersion("v1alpha1")
          .withKind("PartialReport")
          .withPlural("partialreports")
          .withNamespaced(true)
          .build();

  static final ResourceDefinitionContext POLICY_REPORTS =
      new ResourceDefinitionContext.Builder()
          .withGroup("wgpolicyk8s.io")
          .withVersion("v1alpha2")
          .withKind("PolicyReport")
          .withPlural("policyreports")
          .withNamespaced(true)
          .build();

  private static String otherNamespace(KubernetesClient admin, String ns) {
    String other = ns.length() > 55 ? ns.substring(0, 55) + "-b" : ns + "-b";
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(other).endMetadata().build())
        .create();
    return other;
  }

  private static GenericKubernetesResource partialAbout(
      KubernetesClient admin, String ns, Subject subject) {
    return admin
        .genericKubernetesResources(PARTIAL_REPORTS)
        .inNamespace(ns)
        .list()
        .getItems()
        .stream()
        .filter(
            p -> subject.uid().equals(p.getMetadata().getLabels().get(WireNames.SUBJECT_UID_LABEL)))
        .findFirst()
        .orElseThrow();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> firstResult(GenericKubernetesResource partial) {
    var spec = (Map<String, Object>) partial.getAdditionalProperties().get("spec");
    return ((List<Map<String, Object>>) spec.get("results")).get(0);
  }

  private static boolean rejectedEventNames(
      KubernetesClient admin, String ns, String object, String field) {
    return admin.v1().events().inNamespace(ns).list().getItems().stream()
        .anyMatch(
            e ->
                "Rejected".equals(e.getReason())
                    && object.equals(e.getInvolvedObject().getName())
                    && e.getMessage().contains(field));
  }

  /**
   * {@code results[].timestamp.nanos} past int32 in a PartialReport: refuted. The CRDs that declare
   * nanos (Tally's, wgpolicyk8s.io's, openreports.io's, Kyverno's EphemeralReport) say {@code
   * format: int32}, and the server enforces that format: it refuses the write (422), so no such
   * object reaches a LIST.
   */
  @Test
  void aResultTimestampPastInt32IsRefusedByTheServer(RealKubernetes.Cluster cluster)
      throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    Subject bad = subject(admin, ns, "bad");
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build()) {
      publishFailure(publisher, "scanner", bad, "require-labels");
      GenericKubernetesResource tampered = partialAbout(admin, ns, bad);
      firstResult(tampered).put("timestamp", Map.of("seconds", 1, "nanos", 2_147_483_648L));

      var refused =
          catchThrowableOfType(
              KubernetesClientException.class,
              () -> admin.genericKubernetesResources(PARTIAL_REPORTS).resource(tampered).update());
      assertThat(refused).as("the server refuses nanos past int32").isNotNull();
      assertThat(refused.getCode()).isEqualTo(422);
      assertThat(refused.getMessage()).contains("format int32");
    }
  }

  /**
   * An owned report whose summary count is past int32 (a tenant may edit reports in its namespace;
   * the CRD says {@code type: integer} only). Before, the typed LIST of owned reports failed to
   * bind, every resync failed and, since a failed write is repaired by a resync, writes stopped in
   * every namespace. Now it binds, is found not to decode and is rewritten, and the other
   * namespaces keep being written.
   */
  @Test
  void anOwnedReportWithASummaryPastInt32IsRewrittenAndTheRestFlows(RealKubernetes.Cluster cluster)
      throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    String other = otherNamespace(admin, ns);
    Subject first = subject(admin, ns, "first");
    Subject elsewhere = subject(admin, other, "elsewhere");
    Subject later = subject(admin, other, "later");
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build();
        AggregatorController controller = controllerOn(admin).build().start()) {
      publishFailure(publisher, "scanner", first, "require-labels");
      publishFailure(publisher, "scanner", elsewhere, "require-labels");
      Await.until(
          "both are aggregated", () -> results(admin, ns) == 1 && results(admin, other) == 1);

      var report =
          admin.genericKubernetesResources(POLICY_REPORTS).inNamespace(ns).list().getItems().get(0);
      @SuppressWarnings("unchecked")
      var summary = (Map<String, Object>) report.getAdditionalProperties().get("summary");
      summary.put("fail", 3_000_000_000L);
      admin.genericKubernetesResources(POLICY_REPORTS).resource(report).update();
      assertThat(
              ((Map<?, ?>)
                      admin
                          .genericKubernetesResources(POLICY_REPORTS)
                          .inNamespace(ns)
                          .withName(report.getMetadata().getName())
                          .get()
                          .getAdditionalProperties()
                          .get("summary"))
                  .get("fail"))
          .as("the server stores a count past int32")
          .isEqualTo(3_000_000_000L);

      controller.resyncNow().get(60, TimeUnit.SECONDS);
      publishFailure(publisher, "scanner", later, "disallow-latest");
      Await.until("the other namespace is still written", () -> results(admin, other) == 2);
      Await.until(
          "the tampered summary is rewritten",
          () -> summaryFail(admin, ns, report.getMetadata().getName()) == 1);
    } finally {
      admin.namespaces().withName(other).delete();
    }
  }

  private static long summaryFail(KubernetesClient admin, String ns, String name) {
    var r = admin.resources(PolicyReportResource.class).inNamespace(ns).withName(name).get();
    return r == null || r.getSummary() == null || r.getSummary().fail() == null
        ? -1
        : r.getSummary().fail();
  }

  /**
   * An Event name over 253 characters: refuted. The rejection Event is named {@code <object
   * name>.<12 hex digits>}, 266 characters for an object named at the limit; the core/v1 Events API
   * does not hold Event names to the DNS subdomain rule (only events.k8s.io/v1 does), so the Event
   * is recorded and the refusal is not silent.
   */
  @Test
  void aRefusedObjectWithALongNameStillGetsItsEvent(RealKubernetes.Cluster cluster)
      throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    Subject subject = subject(admin, ns, "long");
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build();
        AggregatorController controller = controllerOn(admin).build().start()) {
      publishFailure(publisher, "scanner", subject, "require-labels");
      GenericKubernetesResource copy = partialAbout(admin, ns, subject);
      String name = "x".repeat(200) + "." + "y".repeat(52);
      assertThat(name).hasSize(253);
      copy.getMetadata().setName(name);
      copy.getMetadata().setResourceVersion(null);
      copy.getMetadata().setUid(null);
      copy.getMetadata().setOwnerReferences(null);
      copy.getMetadata().setManagedFields(null);
      copy.getMetadata().setCreationTimestamp(null);
      @SuppressWarnings("unchecked")
      var spec = (Map<String, Object>) copy.getAdditionalProperties().get("spec");
      @SuppressWarnings("unchecked")
      var about = (Map<String, Object>) spec.get("subject");
      about.put("namespace", "elsewhere"); // a subject in another namespace: refused
      admin.genericKubernetesResources(PARTIAL_REPORTS).resource(copy).create();

      Await.until(
          "a Rejected Event names the field",
          () -> rejectedEventNames(admin, ns, name, "spec.subject.namespace"));
    }
  }

  /**
   * Nesting deeper than a JSON reader's limit (Jackson 3, fabric8 8.x's, stops at 500 levels;
   * Jackson 2, 7.x's, at 1000): refuted. Tally's CRDs and the report CRDs have structural schemas
   * without {@code x-kubernetes-preserve-unknown-fields}, so the server prunes every field the
   * schema does not name, and the deepest path a stored object can have is the schema's (about ten
   * levels); where the schema wants a string, a nested value is refused. The requests are sent as
   * raw JSON (fabric8's own serializer refuses to write such depth).
   */
  @Test
  void nestingPastTheReadersLimitIsPrunedOrRefusedByTheServer(RealKubernetes.Cluster cluster)
      throws Exception {
    KubernetesClient admin = cluster.admin();
    installCrds(admin);
    String ns = cluster.namespace();
    Subject subject = subject(admin, ns, "deep");
    try (PartialReportPublisher publisher = PartialReportPublisher.builder(admin).build()) {
      publishFailure(publisher, "scanner", subject, "require-labels");
      GenericKubernetesResource partial = partialAbout(admin, ns, subject);
      String name = partial.getMetadata().getName();
      String json = Serialization.asJson(partial);
      String deep = "{\"a\":".repeat(2_000) + "{}" + "}".repeat(2_000);
      assertThat(json).contains("\"results\":[{");

      int pruned =
          put(
              admin,
              ns,
              name,
              json.replace("\"results\":[{", "\"results\":[{\"unknownField\":" + deep + ","));
      assertThat(pruned).as("a deep unknown field: accepted, and pruned").isEqualTo(200);
      GenericKubernetesResource stored = partialAbout(admin, ns, subject);
      assertThat(firstResult(stored)).doesNotContainKey("unknownField");
      assertThat(depth(stored.getAdditionalProperties())).isLessThan(20);

      String again = Serialization.asJson(stored);
      int refused =
          put(
              admin,
              ns,
              name,
              again.replace(
                  "\"results\":[{", "\"results\":[{\"properties\":{\"key\":" + deep + "},"));
      assertThat(refused).as("a deep value where the schema wants a string").isIn(400, 422);

      try (AggregatorController controller = controllerOn(admin).build().start()) {
        Await.until("aggregated", () -> results(admin, ns) == 1);
      }
    }
  }

  /** PUTs {@code json} as the partial report {@code name}, bypassing fabric8's serializer. */
  private static int put(KubernetesClient admin, String ns, String name, String json)
      throws Exception {
    HttpClient http = admin.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(
                URI.create(
                    admin.getMasterUrl()
                        + "apis/tally.dev/v1alpha1/namespaces/"
                        + ns
                        + "/partialreports/"
                        + name))
            .method("PUT", "application/json", json)
            .build();
    HttpResponse<String> response = http.sendAsync(request, String.class).get(60, TimeUnit.SECONDS);
    return response.code();
  }

  private static Map<String, Object> nested(int levels) {
    Map<String, Object> root = new LinkedHashMap<>();
    Map<String, Object> at = root;
    for (int i = 0; i < levels; i++) {
      Map<String, Object> next = new LinkedHashMap<>();
      at.put("a", next);
      at = next;
    }
    return root;
  }

  private static int depth(Object value) {
    int max = 0;
    List<Object> children = new ArrayList<>();
    if (value instanceof Map<?, ?> m) {
      children.addAll(m.values());
    } else if (value instanceof List<?> l) {
      children.addAll(l);
    } else {
      return 0;
    }
    for (Object child : children) {
      max = Math.max(max, depth(child));
    }
    return max + 1;
  }
}
