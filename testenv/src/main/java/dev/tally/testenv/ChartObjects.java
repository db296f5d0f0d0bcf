package dev.tally.testenv;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What installing another project's programs as its Helm chart would takes from the chart and its
 * module: CRDs applied from folders of YAML files, the objects of a rendered chart, and a
 * Deployment's container, whose arguments and plain environment a program is started with.
 */
final class ChartObjects {
  private ChartObjects() {}

  /**
   * Applies every CRD of the {@code *.yaml} files in {@code folders} (each folder's files in name
   * order) and waits until each is established.
   */
  static void installCrds(KubernetesClient admin, List<Path> folders) {
    List<CustomResourceDefinition> crds = new ArrayList<>();
    for (Path folder : folders) {
      try (Stream<Path> files = Files.list(folder)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
          try (InputStream in = Files.newInputStream(file)) {
            crds.add(admin.apiextensions().v1().customResourceDefinitions().load(in).item());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("reading the CRDs in " + folder, e);
      }
    }
    for (CustomResourceDefinition crd : crds) {
      crd.getMetadata().setResourceVersion(null);
      admin.resource(crd).forceConflicts().serverSideApply();
    }
    for (CustomResourceDefinition crd : crds) {
      admin
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(crd.getMetadata().getName())
          .waitUntilCondition(
              c ->
                  c != null
                      && c.getStatus() != null
                      && c.getStatus().getConditions().stream()
                          .anyMatch(
                              k ->
                                  "Established".equals(k.getType())
                                      && "True".equals(k.getStatus())),
              60,
              TimeUnit.SECONDS);
    }
  }

  /**
   * Creates {@code namespace} and applies {@code chart}'s objects of {@code kinds} (server-side),
   * each namespaced one in its own namespace or, when the chart names none, in {@code namespace}.
   */
  static void apply(
      KubernetesClient admin, String namespace, List<HasMetadata> chart, Set<String> kinds) {
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .serverSideApply();
    for (HasMetadata object : chart) {
      if (kinds.contains(object.getKind())) {
        boolean clusterScoped =
            object.getKind().equals("ClusterRole") || object.getKind().equals("ClusterRoleBinding");
        if (!clusterScoped && object.getMetadata().getNamespace() == null) {
          object.getMetadata().setNamespace(namespace);
        }
        admin.resource(object).forceConflicts().serverSideApply();
      }
    }
  }

  /** The objects of a chart Helm rendered into {@code rendered} (every document with a kind). */
  static List<HasMetadata> parse(Path rendered) throws IOException {
    List<HasMetadata> objects = new ArrayList<>();
    try (KubernetesClient offline = new KubernetesClientBuilder().build()) {
      for (String doc : Files.readString(rendered).split("(?m)^---\\s*$")) {
        if (doc.lines().anyMatch(l -> l.startsWith("kind:"))) {
          objects.addAll(
              offline.load(new ByteArrayInputStream(doc.getBytes(StandardCharsets.UTF_8))).items());
        }
      }
    }
    return objects;
  }

  /** The Deployment named {@code deployment} among {@code chart}'s objects. */
  static Deployment deployment(List<HasMetadata> chart, String deployment) {
    return chart.stream()
        .filter(o -> o instanceof Deployment && o.getMetadata().getName().equals(deployment))
        .map(o -> (Deployment) o)
        .findFirst()
        .orElseThrow(
            () -> new IllegalStateException("the chart renders no Deployment " + deployment));
  }

  /** The container {@code container} of the Deployment {@code deployment} of {@code chart}. */
  static Container container(List<HasMetadata> chart, String deployment, String container) {
    return deployment(chart, deployment).getSpec().getTemplate().getSpec().getContainers().stream()
        .filter(c -> c.getName().equals(container))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "the chart renders no container " + container + " in " + deployment));
  }

  /**
   * The container's plain environment values: those the Pod's fields or other variables give
   * ({@code valueFrom}, {@code $(...)}) are the caller's to set.
   */
  static Map<String, String> plainEnv(Container container) {
    Map<String, String> out = new LinkedHashMap<>();
    for (EnvVar e : container.getEnv()) {
      if (e.getValue() != null && !e.getValue().contains("$(")) {
        out.put(e.getName(), e.getValue());
      }
    }
    return out;
  }
}
