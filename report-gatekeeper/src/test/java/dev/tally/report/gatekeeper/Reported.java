package dev.tally.report.gatekeeper;

import dev.tally.report.merge.gatekeeper.GatekeeperMapping;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** What the cluster's PolicyReports hold of Gatekeeper's results, as the tests read them. */
final class Reported {
  private Reported() {}

  /**
   * The uids of the resources of {@code policy}'s failed Gatekeeper results in the PolicyReports of
   * {@code ns}, as the cluster holds them.
   */
  static Set<String> failingUids(KubernetesClient client, String ns, String policy) {
    Set<String> uids = new TreeSet<>();
    for (GenericKubernetesResource report :
        client
            .genericKubernetesResources("wgpolicyk8s.io/v1alpha2", "PolicyReport")
            .inNamespace(ns)
            .list()
            .getItems()) {
      if (!(report.getAdditionalProperties().get("results") instanceof List<?> results)) {
        continue;
      }
      for (Object r : results) {
        if (r instanceof Map<?, ?> result
            && policy.equals(result.get("policy"))
            && "fail".equals(result.get("result"))
            && GatekeeperMapping.SOURCE.equals(result.get("source"))
            && result.get("resources") instanceof List<?> resources) {
          for (Object resource : resources) {
            if (resource instanceof Map<?, ?> m && m.get("uid") instanceof String uid) {
              uids.add(uid);
            }
          }
        }
      }
    }
    return uids;
  }
}
