package dev.tally.kyverno.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the PolicyReports of a namespace say, in a form two runs can be compared by: per resource
 * ({@code Kind/name}, the report's scope), its results as {@code policy/rule=result}, sorted.
 * Timestamps, uids and messages are left out; they differ between runs of the same scenario.
 */
public final class Reports {
  public static final ResourceDefinitionContext POLICY_REPORTS =
      new ResourceDefinitionContext.Builder()
          .withGroup("wgpolicyk8s.io")
          .withVersion("v1alpha2")
          .withPlural("policyreports")
          .withKind("PolicyReport")
          .withNamespaced(true)
          .build();

  public static final ResourceDefinitionContext EPHEMERAL_REPORTS =
      new ResourceDefinitionContext.Builder()
          .withGroup("reports.kyverno.io")
          .withVersion("v1")
          .withPlural("ephemeralreports")
          .withKind("EphemeralReport")
          .withNamespaced(true)
          .build();

  private Reports() {}

  /** Per resource of {@code namespace} that has a report, its results. */
  public static SortedMap<String, SortedSet<String>> of(KubernetesClient client, String namespace) {
    return results(client, namespace, Reports::subjectOf);
  }

  /** Per report name (Kyverno's layout: the resource's uid), its results. */
  public static SortedMap<String, SortedSet<String>> byUid(
      KubernetesClient client, String namespace) {
    return results(client, namespace, r -> r.getMetadata().getName());
  }

  private static SortedMap<String, SortedSet<String>> results(
      KubernetesClient client,
      String namespace,
      java.util.function.Function<GenericKubernetesResource, String> key) {
    SortedMap<String, SortedSet<String>> out = new TreeMap<>();
    for (GenericKubernetesResource report :
        client
            .genericKubernetesResources(POLICY_REPORTS)
            .inNamespace(namespace)
            .list()
            .getItems()) {
      SortedSet<String> results = out.computeIfAbsent(key.apply(report), k -> new TreeSet<>());
      for (Map<String, Object> r : resultsOf(report)) {
        results.add(result(r, namespace));
      }
    }
    return out;
  }

  /**
   * {@code policy/rule=result}; a namespaced policy's name in a report is {@code namespace/name},
   * written {@code <ns>/name} here so that two runs in two namespaces compare.
   */
  static String result(Map<String, Object> r, String namespace) {
    String policy = String.valueOf(r.get("policy"));
    if (policy.startsWith(namespace + "/")) {
      policy = "<ns>/" + policy.substring(namespace.length() + 1);
    }
    return policy + "/" + r.getOrDefault("rule", "") + "=" + r.get("result");
  }

  /** The PolicyReports of a namespace held by an informer: counted without listing them again. */
  public static final class Watch implements AutoCloseable {
    private final io.fabric8.kubernetes.client.informers.SharedIndexInformer<
            GenericKubernetesResource>
        informer;

    public Watch(KubernetesClient client, String namespace) {
      informer = client.genericKubernetesResources(POLICY_REPORTS).inNamespace(namespace).inform();
    }

    /** How many reports are about a Pod. */
    public long pods() {
      return informer.getStore().list().stream()
          .filter(r -> subjectOf(r).startsWith("Pod/"))
          .count();
    }

    @Override
    public void close() {
      informer.close();
    }
  }

  /** {@code Kind/name} of the report's scope, or {@code report:<name>} without one. */
  static String subjectOf(GenericKubernetesResource report) {
    Object scope = report.getAdditionalProperties().get("scope");
    if (scope instanceof Map<?, ?> s) {
      return s.get("kind") + "/" + s.get("name");
    }
    return "report:" + report.getMetadata().getName();
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> resultsOf(GenericKubernetesResource report) {
    Object results = report.getAdditionalProperties().get("results");
    return results instanceof List<?> l ? (List<Map<String, Object>>) l : List.of();
  }

  /** The intermediate reports waiting in {@code namespace}, one line each, for failure messages. */
  public static String describeWaiting(KubernetesClient client, String namespace) {
    StringBuilder out = new StringBuilder();
    for (GenericKubernetesResource r : waitingReports(client, namespace)) {
      var m = r.getMetadata();
      out.append("  ")
          .append(m.getName())
          .append(" created ")
          .append(m.getCreationTimestamp())
          .append(" labels ")
          .append(m.getLabels())
          .append(" annotations ")
          .append(m.getAnnotations())
          .append(" owners ")
          .append(
              m.getOwnerReferences().stream().map(o -> o.getKind() + "/" + o.getName()).toList())
          .append(" results ")
          .append(
              r.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec
                      && spec.get("results") instanceof List<?> l
                  ? l.size()
                  : 0)
          .append('\n');
    }
    return out.toString();
  }

  /** The names of the intermediate reports waiting in {@code namespace}. */
  public static java.util.Set<String> waitingNames(KubernetesClient client, String namespace) {
    return waitingReports(client, namespace).stream()
        .map(r -> r.getMetadata().getName())
        .collect(java.util.stream.Collectors.toSet());
  }

  /** The resource uids the intermediate reports waiting in {@code namespace} are about. */
  public static java.util.List<String> waitingAbout(KubernetesClient client, String namespace) {
    return waitingReports(client, namespace).stream()
        .map(
            r ->
                r.getMetadata().getLabels() == null
                    ? ""
                    : r.getMetadata().getLabels().getOrDefault("audit.kyverno.io/resource.uid", ""))
        .toList();
  }

  /** How many intermediate reports wait in {@code namespace}. */
  public static int waiting(KubernetesClient client, String namespace) {
    return waitingReports(client, namespace).size();
  }

  private static List<GenericKubernetesResource> waitingReports(
      KubernetesClient client, String namespace) {
    return client
        .genericKubernetesResources(EPHEMERAL_REPORTS)
        .inNamespace(namespace)
        .list()
        .getItems();
  }
}
