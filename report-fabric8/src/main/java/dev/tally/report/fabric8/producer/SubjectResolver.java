package dev.tally.report.fabric8.producer;

import dev.tally.report.api.Subject;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Locale;
import java.util.Optional;

/** Finds the uid of a subject that exists now, to adopt partial reports written before it did. */
@FunctionalInterface
public interface SubjectResolver {

  /**
   * @return the uid of the object {@code subject} names, empty if it does not exist
   */
  Optional<String> uidOf(Subject subject);

  /**
   * Reads the subject with a generic GET. The resource's plural is derived from its kind (lower
   * case, English plural rules); pass your own resolver for kinds where that guess is wrong.
   */
  static SubjectResolver of(KubernetesClient client) {
    return subject -> {
      String apiVersion = subject.apiVersion().isEmpty() ? "v1" : subject.apiVersion();
      int slash = apiVersion.indexOf('/');
      var context =
          new ResourceDefinitionContext.Builder()
              .withGroup(slash < 0 ? "" : apiVersion.substring(0, slash))
              .withVersion(slash < 0 ? apiVersion : apiVersion.substring(slash + 1))
              .withKind(subject.kind())
              .withPlural(plural(subject.kind()))
              .withNamespaced(!subject.clusterScoped())
              .build();
      var op = client.genericKubernetesResources(context);
      GenericKubernetesResource found =
          subject.clusterScoped()
              ? op.withName(subject.name()).get()
              : op.inNamespace(subject.namespace()).withName(subject.name()).get();
      return Optional.ofNullable(found).map(r -> r.getMetadata().getUid());
    };
  }

  private static String plural(String kind) {
    String k = kind.toLowerCase(Locale.ROOT);
    if (k.endsWith("s") || k.endsWith("x") || k.endsWith("ch") || k.endsWith("sh")) {
      return k + "es";
    }
    if (k.endsWith("y") && k.length() > 1 && "aeiou".indexOf(k.charAt(k.length() - 2)) < 0) {
      return k.substring(0, k.length() - 1) + "ies";
    }
    return k + "s";
  }
}
