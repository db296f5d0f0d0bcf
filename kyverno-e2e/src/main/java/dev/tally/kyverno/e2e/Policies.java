package dev.tally.kyverno.e2e;

import dev.tally.testenv.Await;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The scenario's policies (resources of this module, written for the tests): three cluster-wide
 * ones (a ClusterPolicy with two rules, a Pod Security one, a CEL ValidatingPolicy) and a
 * namespaced Policy; applied, waited for until Kyverno says they are ready, edited and deleted.
 */
public final class Policies {
  public static final String LABELS = "tally-e2e-labels";
  public static final String POD_SECURITY = "tally-e2e-pod-security";
  public static final String HOST_NETWORK = "tally-e2e-no-host-network";
  public static final String APP_LABEL = "tally-e2e-app-label";

  private Policies() {}

  /**
   * Creates (or keeps) {@code namespace} with the label {@code tally-e2e=true}, which the
   * cluster-wide policies select: the other namespaces of the control plane stay out of their
   * scope.
   */
  public static void labelledNamespace(KubernetesClient client, String namespace) {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(namespace)
                .addToLabels("tally-e2e", "true")
                .endMetadata()
                .build())
        .serverSideApply();
  }

  /** A Pod of one nginx container with {@code labels}, on the host's network or not. */
  public static Pod pod(String name, Map<String, String> labels, boolean hostNetwork) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(new TreeMap<>(labels))
        .endMetadata()
        .withNewSpec()
        .withHostNetwork(hostNetwork)
        .addNewContainer()
        .withName("app")
        .withImage("nginx:1.27")
        .endContainer()
        .endSpec()
        .build();
  }

  /** The cluster-wide policies, as loaded from {@code cluster-policies.yaml}. */
  public static List<HasMetadata> clusterPolicies(KubernetesClient client) {
    return load(client, "cluster-policies.yaml");
  }

  /** The namespaced Policy, in {@code namespace}. */
  public static HasMetadata namespacedPolicy(KubernetesClient client, String namespace) {
    HasMetadata policy = load(client, "namespaced-policy.yaml").get(0);
    policy.getMetadata().setNamespace(namespace);
    return policy;
  }

  /** Applies every policy and waits until Kyverno reports each ready. */
  public static void applyAll(KubernetesClient client, String namespace) {
    for (HasMetadata p : clusterPolicies(client)) {
      client.resource(p).forceConflicts().serverSideApply();
    }
    client.resource(namespacedPolicy(client, namespace)).forceConflicts().serverSideApply();
    awaitReady(client, namespace);
  }

  /** Waits until every policy of the scenario that exists says it is ready. */
  public static void awaitReady(KubernetesClient client, String namespace) {
    Await.until(
        "Kyverno reports the scenario's policies ready",
        () -> {
          for (HasMetadata p : clusterPolicies(client)) {
            GenericKubernetesResource live =
                client
                    .genericKubernetesResources(p.getApiVersion(), p.getKind())
                    .withName(p.getMetadata().getName())
                    .get();
            if (live != null && !ready(live)) {
              return false;
            }
          }
          GenericKubernetesResource ns =
              client
                  .genericKubernetesResources("kyverno.io/v1", "Policy")
                  .inNamespace(namespace)
                  .withName(APP_LABEL)
                  .get();
          return ns == null || ready(ns);
        },
        Duration.ofMinutes(2));
  }

  @SuppressWarnings("unchecked")
  static boolean ready(GenericKubernetesResource policy) {
    Object status = policy.getAdditionalProperties().get("status");
    if (!(status instanceof Map<?, ?> s)) {
      return false;
    }
    if (s.get("conditionStatus") instanceof Map<?, ?> cs && Boolean.TRUE.equals(cs.get("ready"))) {
      return true;
    }
    if (s.get("conditions") instanceof List<?> conditions) {
      for (Object c : conditions) {
        Map<String, Object> condition = (Map<String, Object>) c;
        if ("Ready".equals(condition.get("type")) && "True".equals(condition.get("status"))) {
          return true;
        }
      }
    }
    return false;
  }

  private static List<HasMetadata> load(KubernetesClient client, String resource) {
    try (InputStream in = Policies.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the class path");
      }
      return client.load(in).items();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
