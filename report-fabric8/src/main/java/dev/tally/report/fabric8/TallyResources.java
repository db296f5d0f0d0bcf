package dev.tally.report.fabric8;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Kubernetes manifests shipped in this jar: Tally's CRDs and the RBAC roles of its own input;
 * each other input ships its roles in its own jar ({@link #read(Class, String)}).
 */
public final class TallyResources {
  /** The PartialReport CRD, namespaced. */
  public static final String PARTIAL_REPORT_CRD =
      "META-INF/tally/crds/partialreports.tally.dev.yaml";

  /** The ClusterPartialReport CRD, cluster-scoped. */
  public static final String CLUSTER_PARTIAL_REPORT_CRD =
      "META-INF/tally/crds/clusterpartialreports.tally.dev.yaml";

  /**
   * The ClusterRoles {@code tally-aggregator}, {@code tally-producer}, {@code tally-audit-member}
   * and {@code tally-audit-coordination}.
   */
  public static final String RBAC = "META-INF/tally/rbac/clusterroles.yaml";

  private TallyResources() {}

  public static String partialReportCrdYaml() {
    return read(PARTIAL_REPORT_CRD);
  }

  public static String clusterPartialReportCrdYaml() {
    return read(CLUSTER_PARTIAL_REPORT_CRD);
  }

  public static String rbacYaml() {
    return read(RBAC);
  }

  /** Tally's two CRDs, parsed. */
  public static List<CustomResourceDefinition> crds() {
    return List.of(crd(partialReportCrdYaml()), crd(clusterPartialReportCrdYaml()));
  }

  /** Creates or replaces Tally's CRDs, as an installer or a test would. */
  public static void installCrds(KubernetesClient client) {
    for (CustomResourceDefinition crd : crds()) {
      client.resource(crd).createOr(existing -> existing.update());
    }
  }

  /**
   * Creates or replaces the ClusterRoles of {@link #RBAC} (the aggregator's, its Lease's, the
   * producer's and the audit's), as an installer or a test would; binding them is the installer's.
   */
  public static void installClusterRoles(KubernetesClient client) {
    try (InputStream in =
        new java.io.ByteArrayInputStream(rbacYaml().getBytes(StandardCharsets.UTF_8))) {
      for (var role : client.load(in).items()) {
        client.resource(role).createOr(existing -> existing.update());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static CustomResourceDefinition crd(String yaml) {
    return Serialization.unmarshal(yaml, CustomResourceDefinition.class);
  }

  private static String read(String resource) {
    return read(TallyResources.class, resource);
  }

  /**
   * A text file shipped in {@code owner}'s jar (an input's ClusterRoles, say), by its path from the
   * jar's root.
   *
   * @throws IllegalStateException when the class path does not hold it
   */
  public static String read(Class<?> owner, String resource) {
    try (InputStream in = owner.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
