package dev.tally.report.fabric8;

import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * A tenant of a namespace on the real control plane: a ServiceAccount with the rights over reports
 * that Kyverno's default install gives every namespace admin, and nothing else.
 *
 * <p>Kyverno's chart aggregates {@code kyverno:rbac:admin:reports} (EphemeralReports) and {@code
 * kyverno:rbac:admin:policyreports} (PolicyReports) into the built-in {@code admin} role, each with
 * the verbs create, delete, get, list, patch, update and watch; so whoever administers a namespace
 * may write any report in it. {@link #ROLE} is the tests' own ClusterRole with those rules, plus
 * the same rights over {@code openreports.io} Reports and Tally's PartialReports (which an operator
 * might grant its tenants the same way), bound with a RoleBinding in one namespace only: its
 * cluster-scoped kinds are listed as Kyverno lists them, and a RoleBinding grants none of them.
 */
final class Tenant {
  /** The tests' ClusterRole of a namespace admin's rights over reports. */
  static final String ROLE = "tally-test-tenant-reports";

  /** The ServiceAccount's name in each namespace {@link #in} is called for. */
  static final String ACCOUNT = "tenant";

  /** The verbs of Kyverno's {@code kyverno:rbac:admin:*reports} roles. */
  static final List<String> VERBS =
      List.of("create", "delete", "get", "list", "patch", "update", "watch");

  private Tenant() {}

  /**
   * A client authenticated as the tenant of {@code namespace} (which must exist): the
   * ServiceAccount {@value #ACCOUNT} there, bound by a RoleBinding in that namespace only to {@link
   * #ROLE}. The role, account and binding are created when missing. The caller closes the client
   * before its test ends (the cluster closes only the clients it made).
   */
  static KubernetesClient in(RealKubernetes.Cluster cluster, String namespace) {
    KubernetesClient admin = cluster.admin();
    admin.rbac().clusterRoles().resource(role()).createOr(existing -> existing.update());
    admin
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(ACCOUNT)
                .withNamespace(namespace)
                .endMetadata()
                .build())
        .createOr(existing -> existing.update());
    admin
        .rbac()
        .roleBindings()
        .inNamespace(namespace)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName(ROLE)
                .withNamespace(namespace)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", ROLE)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(ACCOUNT)
                .withNamespace(namespace)
                .endSubject()
                .build())
        .createOr(existing -> existing.update());
    String token =
        admin
            .serviceAccounts()
            .inNamespace(namespace)
            .withName(ACCOUNT)
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    return cluster.env().clientWithToken(token);
  }

  /** {@link #ROLE}: Kyverno's two namespace-admin report roles, openreports and Tally's too. */
  static ClusterRole role() {
    return new ClusterRoleBuilder()
        .withNewMetadata()
        .withName(ROLE)
        .endMetadata()
        .addNewRule()
        .withApiGroups("reports.kyverno.io")
        .withResources("ephemeralreports", "clusterephemeralreports")
        .withVerbs(VERBS)
        .endRule()
        .addNewRule()
        .withApiGroups("wgpolicyk8s.io")
        .withResources("policyreports", "clusterpolicyreports")
        .withVerbs(VERBS)
        .endRule()
        .addNewRule()
        .withApiGroups("openreports.io")
        .withResources("reports", "clusterreports")
        .withVerbs(VERBS)
        .endRule()
        .addNewRule()
        .withApiGroups("tally.dev")
        .withResources("partialreports", "clusterpartialreports")
        .withVerbs(VERBS)
        .endRule()
        .build();
  }
}
