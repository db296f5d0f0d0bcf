package dev.tally.report.gatekeeper;

import dev.tally.report.fabric8.client.Requests;
import dev.tally.report.fabric8.internal.PagedList;
import dev.tally.report.merge.gatekeeper.ConstraintAudits;
import dev.tally.report.merge.gatekeeper.GatekeeperMapping;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which constraints a run of the audit is known to have audited: those whose status names the run
 * ({@code status.auditTimestamp}, which Gatekeeper writes once it audited them). Read from the
 * cluster: the ConstraintTemplates (each makes a constraint kind, {@code spec.crd.spec.names.kind})
 * and each kind's constraints, listed in pages.
 */
final class ConstraintStatuses {
  /** Gatekeeper's ConstraintTemplates. */
  static final ResourceDefinitionContext TEMPLATES =
      new ResourceDefinitionContext.Builder()
          .withGroup("templates.gatekeeper.sh")
          .withVersion("v1")
          .withKind("ConstraintTemplate")
          .withPlural("constrainttemplates")
          .withNamespaced(false)
          .build();

  /** The group and version Gatekeeper serves every constraint kind at. */
  static final String CONSTRAINTS_GROUP = "constraints.gatekeeper.sh";

  static final String CONSTRAINTS_VERSION = "v1beta1";

  private ConstraintStatuses() {}

  /**
   * What the statuses say.
   *
   * @param stamps the uid and audit timestamp of every constraint listed, by {@linkplain
   *     GatekeeperMapping#policy policy}; the timestamp empty where a constraint has none yet
   * @param unlisted the kinds whose constraints could not be listed (a LIST refused or failed for
   *     good), each with why: nothing is known of them, and the others still count
   */
  record Listed(Map<String, ConstraintAudits.Stamp> stamps, Map<String, String> unlisted) {}

  /**
   * The statuses of every constraint.
   *
   * @throws io.fabric8.kubernetes.client.KubernetesClientException if the templates' LIST failed
   *     for good
   */
  static Listed auditTimestamps(KubernetesClient client, Requests calls) {
    Map<String, ConstraintAudits.Stamp> stamps = new TreeMap<>();
    Map<String, String> unlisted = new TreeMap<>();
    for (GenericKubernetesResource template :
        PagedList.<GenericKubernetesResource>all(
            calls,
            "list constrainttemplates.templates.gatekeeper.sh",
            options -> client.genericKubernetesResources(TEMPLATES).list(options))) {
      String kind =
          string(template.getAdditionalProperties(), "spec", "crd", "spec", "names", "kind");
      if (kind.isEmpty()) {
        continue; // a template whose CRD is not made yet has no constraints
      }
      ResourceDefinitionContext constraints =
          new ResourceDefinitionContext.Builder()
              .withGroup(CONSTRAINTS_GROUP)
              .withVersion(CONSTRAINTS_VERSION)
              .withKind(kind)
              .withPlural(kind.toLowerCase(Locale.ROOT))
              .withNamespaced(false)
              .build();
      List<GenericKubernetesResource> listed;
      try {
        listed =
            PagedList.all(
                calls,
                "list " + kind.toLowerCase(Locale.ROOT) + "." + CONSTRAINTS_GROUP,
                options -> client.genericKubernetesResources(constraints).list(options));
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
          // refused, or failing for good: one kind does not keep the others from counting
          unlisted.put(kind, dev.tally.report.fabric8.client.RequestFailedException.rootCause(e));
          continue;
        }
        // the kind is not served (its CRD not made yet, or never: a template that does not
        // compile): no constraint of it exists, and the others' statuses still count
        continue;
      }
      for (GenericKubernetesResource c : listed) {
        stamps.put(
            GatekeeperMapping.policy(kind, c.getMetadata().getName()),
            new ConstraintAudits.Stamp(
                java.util.Objects.requireNonNullElse(c.getMetadata().getUid(), ""),
                string(c.getAdditionalProperties(), "status", "auditTimestamp")));
      }
    }
    return new Listed(stamps, unlisted);
  }

  /** The string at {@code path} in {@code object}, empty when there is none. */
  private static String string(Map<String, Object> object, String... path) {
    Object at = object;
    for (String key : path) {
      if (!(at instanceof Map<?, ?> m)) {
        return "";
      }
      at = m.get(key);
    }
    return at instanceof String s ? s : "";
  }
}
