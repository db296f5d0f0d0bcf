package dev.tally.report.merge.names;

import java.util.Map;
import java.util.Set;

/**
 * The kinds Kubernetes serves cluster-scoped, by API group (any version): an object of one of them
 * has no namespace, so a namespaced report that names one as its subject speaks about something
 * outside its namespace. Built-in groups only; a custom resource's scope is known to discovery
 * alone, and a group the list does not name is never refused by it.
 */
public final class ClusterScopedKinds {
  private ClusterScopedKinds() {}

  /** Group to kinds, as Kubernetes 1.30 to 1.37 serve them. */
  private static final Map<String, Set<String>> KINDS =
      Map.ofEntries(
          Map.entry("", Set.of("Namespace", "Node", "PersistentVolume", "ComponentStatus")),
          Map.entry("rbac.authorization.k8s.io", Set.of("ClusterRole", "ClusterRoleBinding")),
          Map.entry("apiextensions.k8s.io", Set.of("CustomResourceDefinition")),
          Map.entry("apiregistration.k8s.io", Set.of("APIService")),
          Map.entry(
              "storage.k8s.io",
              Set.of(
                  "StorageClass",
                  "CSIDriver",
                  "CSINode",
                  "VolumeAttachment",
                  "VolumeAttributesClass")),
          Map.entry("scheduling.k8s.io", Set.of("PriorityClass")),
          Map.entry(
              "admissionregistration.k8s.io",
              Set.of(
                  "ValidatingWebhookConfiguration",
                  "MutatingWebhookConfiguration",
                  "ValidatingAdmissionPolicy",
                  "ValidatingAdmissionPolicyBinding",
                  "MutatingAdmissionPolicy",
                  "MutatingAdmissionPolicyBinding")),
          Map.entry("networking.k8s.io", Set.of("IngressClass", "IPAddress", "ServiceCIDR")),
          Map.entry("node.k8s.io", Set.of("RuntimeClass")),
          Map.entry(
              "certificates.k8s.io", Set.of("CertificateSigningRequest", "ClusterTrustBundle")),
          Map.entry(
              "flowcontrol.apiserver.k8s.io", Set.of("FlowSchema", "PriorityLevelConfiguration")),
          Map.entry("resource.k8s.io", Set.of("DeviceClass", "ResourceSlice")));

  /** Whether {@code kind} of {@code apiVersion} ({@code v1}, {@code group/version}) is one. */
  public static boolean contains(String apiVersion, String kind) {
    Set<String> kinds = KINDS.get(KubernetesNames.apiGroup(apiVersion));
    return kinds != null && kinds.contains(kind);
  }
}
