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
    SortedMap<String, SortedSet<String>> out = new TreeMap<>();
    for (GenericKubernetesResource report :
        client
            .genericKubernetesResources(POLICY_REPORTS)
            .inNamespace(namespace)
            .list()
            .getItems()) {
      String subject = subjectOf(report);
      SortedSet<String> results = out.computeIfAbsent(subject, k -> new TreeSet<>());
      for (Map<String, Object> r : resultsOf(report)) {
        results.add(r.get("policy") + "/" + r.getOrDefault("rule", "") + "=" + r.get("result"));
      }
    }
    return out;
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

  /** How many intermediate reports wait in {@code namespace}. */
  public static int waiting(KubernetesClient client, String namespace) {
    return client
        .genericKubernetesResources(EPHEMERAL_REPORTS)
        .inNamespace(namespace)
        .list()
        .getItems()
        .size();
  }
}
