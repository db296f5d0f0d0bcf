package dev.tally.report.audit.worker;

import dev.tally.report.audit.GroupVersionKind;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * A kind the audit lists.
 *
 * @param gvk the kind
 * @param plural its resource name, such as {@code pods}
 * @param namespaced whether its objects live in namespaces
 * @param estimatedObjectBytes the typical encoded size of one object, for the page size
 */
public record AuditTarget(
    GroupVersionKind gvk, String plural, boolean namespaced, long estimatedObjectBytes) {
  public AuditTarget {
    if (plural.isBlank()) {
      throw new IllegalArgumentException("plural must not be blank");
    }
    if (estimatedObjectBytes < 1) {
      throw new IllegalArgumentException("estimatedObjectBytes must be at least 1");
    }
  }

  public static AuditTarget namespaced(String group, String version, String kind, String plural) {
    return new AuditTarget(GroupVersionKind.of(group, version, kind), plural, true, 4096);
  }

  public static AuditTarget clusterScoped(
      String group, String version, String kind, String plural) {
    return new AuditTarget(GroupVersionKind.of(group, version, kind), plural, false, 4096);
  }

  ResourceDefinitionContext context() {
    return new ResourceDefinitionContext.Builder()
        .withGroup(gvk.group())
        .withVersion(gvk.version())
        .withKind(gvk.kind())
        .withPlural(plural)
        .withNamespaced(namespaced)
        .build();
  }
}
