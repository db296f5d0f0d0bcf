package dev.tally.aggregator;

import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Asks the API server's authorizer, with SubjectAccessReviews, what a ServiceAccount may do, and
 * gathers every answer that differs from the one expected, so that one failure lists them all.
 */
final class AccessReview {
  private final KubernetesClient admin;
  private final String user;
  private final List<String> groups;
  private final List<String> wrong = new ArrayList<>();

  AccessReview(KubernetesClient admin, String namespace, String account) {
    this.admin = admin;
    this.user = "system:serviceaccount:" + namespace + ":" + account;
    this.groups =
        List.of(
            "system:serviceaccounts",
            "system:serviceaccounts:" + namespace,
            "system:authenticated");
  }

  /**
   * Expects {@code verb} on {@code resource} (with {@code /subresource}) of {@code group} in {@code
   * namespace} (null: cluster-wide or every namespace), named {@code name} (null: any), to be
   * {@code allowed} or not.
   */
  AccessReview expect(
      boolean allowed,
      String verb,
      String group,
      String resource,
      @Nullable String namespace,
      @Nullable String name) {
    String[] parts = resource.split("/", 2);
    SubjectAccessReview review =
        new SubjectAccessReviewBuilder()
            .withNewSpec()
            .withUser(user)
            .withGroups(groups)
            .withNewResourceAttributes()
            .withVerb(verb)
            .withGroup(group)
            .withResource(parts[0])
            .withSubresource(parts.length > 1 ? parts[1] : null)
            .withNamespace(namespace)
            .withName(name)
            .endResourceAttributes()
            .endSpec()
            .build();
    SubjectAccessReview answer = admin.authorization().v1().subjectAccessReview().create(review);
    boolean actual = Boolean.TRUE.equals(answer.getStatus().getAllowed());
    if (actual != allowed) {
      wrong.add(
          String.format(
              "%s %s %s.%s in %s named %s: %s, expected %s",
              user,
              verb,
              resource,
              group.isEmpty() ? "core" : group,
              namespace == null ? "(cluster)" : namespace,
              name == null ? "(any)" : name,
              actual ? "allowed" : "denied",
              allowed ? "allowed" : "denied"));
    }
    return this;
  }

  /** The answers that differed from those expected. */
  List<String> wrong() {
    return wrong;
  }
}
