package dev.tally.testenv;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.opentest4j.TestAbortedException;

/**
 * A JUnit 5 extension that runs a test against the real control plane of {@link KubeTestEnv}: one
 * per test JVM, a fresh namespace per test, an admin client, and clients for service accounts bound
 * to given ClusterRoles. Inject {@link Cluster} into the test method.
 *
 * <p>Without Go the test is skipped, loudly (a warning at the end of the run counts the skipped
 * tests and says how to get Go), unless {@code CI=true} or {@code -Dtally.kube=required}: then a
 * missing control plane fails the test.
 */
public final class RealKubernetes
    implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(RealKubernetes.class);
  private static final AtomicInteger SKIPPED = new AtomicInteger();
  private static final AtomicBoolean WARNING_REGISTERED = new AtomicBoolean();
  private static final AtomicLong NAMESPACES = new AtomicLong();

  @Override
  public void beforeEach(ExtensionContext context) {
    String why = KubeTestEnv.unavailableBecause();
    if (why != null && !KubeTestEnv.required()) {
      SKIPPED.incrementAndGet();
      if (WARNING_REGISTERED.compareAndSet(false, true)) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> warnSkipped(why)));
      }
      System.err.println("WARNING: SKIPPED against a real Kubernetes control plane: " + why);
      throw new TestAbortedException("no real Kubernetes control plane: " + why);
    }
    KubeTestEnv env = KubeTestEnv.shared();
    String method =
        context
            .getRequiredTestMethod()
            .getName()
            .toLowerCase(Locale.ROOT)
            .replaceAll("[^a-z0-9]", "");
    String namespace =
        "t-"
            + method.substring(0, Math.min(40, method.length()))
            + "-"
            + NAMESPACES.incrementAndGet();
    Cluster cluster = new Cluster(env, namespace);
    context.getStore(STORE).put(Cluster.class, cluster);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    Cluster cluster = context.getStore(STORE).remove(Cluster.class, Cluster.class);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Cluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getStore(STORE).get(Cluster.class, Cluster.class);
  }

  private static void warnSkipped(String why) {
    String line = "=".repeat(78);
    System.err.println(line);
    System.err.println(
        "WARNING: "
            + SKIPPED.get()
            + " tests against a real Kubernetes control plane were SKIPPED.");
    System.err.println("  Why: " + why);
    System.err.println(
        "  They run when Go (1.26 or later) is on the PATH; -Dtally.kube=required or CI=true"
            + " makes a missing Go fail the build instead.");
    System.err.println(line);
  }

  /** What a test gets: its own namespace on the shared control plane, and clients. */
  public static final class Cluster implements AutoCloseable {
    private final KubeTestEnv env;
    private final String namespace;
    private final KubernetesClient admin;
    private final List<KubernetesClient> clients = new ArrayList<>();
    private final List<String> others = new ArrayList<>();

    Cluster(KubeTestEnv env, String namespace) {
      this.env = env;
      this.namespace = namespace;
      this.admin = env.adminClient();
      admin
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .create();
    }

    public KubeTestEnv env() {
      return env;
    }

    /** The test's own namespace, deleted after the test (the namespace controller empties it). */
    public String namespace() {
      return namespace;
    }

    /** A client as the cluster admin; closed after the test. */
    public KubernetesClient admin() {
      return admin;
    }

    /**
     * A client for a new service account {@code name} in the test's namespace, bound (cluster-wide)
     * to each of {@code clusterRoles}, authenticated by a token from the TokenRequest API; closed
     * after the test.
     */
    public KubernetesClient serviceAccount(String name, String... clusterRoles) {
      createServiceAccount(namespace, name);
      for (String role : clusterRoles) {
        admin
            .rbac()
            .clusterRoleBindings()
            .resource(
                new ClusterRoleBindingBuilder()
                    .withNewMetadata()
                    .withName(namespace + "-" + name + "-" + role)
                    .endMetadata()
                    .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", role)
                    .addNewSubject()
                    .withKind("ServiceAccount")
                    .withName(name)
                    .withNamespace(namespace)
                    .endSubject()
                    .build())
            .create();
      }
      return clientOf(namespace, name);
    }

    /**
     * A ClusterRole of the test's own, {@code <namespace>-<suffix>}, granting {@code rules}
     * (created, or replaced when a test named it before), deleted after the test; returns its name.
     */
    public String clusterRole(String suffix, List<PolicyRule> rules) {
      String name = namespace + "-" + suffix;
      admin
          .rbac()
          .clusterRoles()
          .resource(
              new ClusterRoleBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .endMetadata()
                  .withRules(rules)
                  .build())
          .createOr(existing -> existing.update());
      return name;
    }

    /**
     * A second namespace of the test's own, {@code <namespace>-<suffix>}, deleted after the test:
     * another tenant's.
     */
    public String otherNamespace(String suffix) {
      String name = namespace + "-" + suffix;
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
      others.add(name);
      return name;
    }

    /**
     * A client for a new service account {@code name} in {@code tenantNamespace}, bound only there
     * (a RoleBinding) to {@code clusterRole}: a tenant with the rights a namespace admin has.
     */
    public KubernetesClient tenant(String name, String tenantNamespace, String clusterRole) {
      createServiceAccount(tenantNamespace, name);
      admin
          .rbac()
          .roleBindings()
          .inNamespace(tenantNamespace)
          .resource(
              new RoleBindingBuilder()
                  .withNewMetadata()
                  .withName(name + "-" + clusterRole)
                  .withNamespace(tenantNamespace)
                  .endMetadata()
                  .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", clusterRole)
                  .addNewSubject()
                  .withKind("ServiceAccount")
                  .withName(name)
                  .withNamespace(tenantNamespace)
                  .endSubject()
                  .build())
          .create();
      return clientOf(tenantNamespace, name);
    }

    private void createServiceAccount(String inNamespace, String name) {
      admin
          .serviceAccounts()
          .inNamespace(inNamespace)
          .resource(
              new ServiceAccountBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withNamespace(inNamespace)
                  .endMetadata()
                  .build())
          .create();
    }

    /** A client authenticated as the service account, by a token from the TokenRequest API. */
    private KubernetesClient clientOf(String inNamespace, String name) {
      TokenRequest token =
          admin
              .serviceAccounts()
              .inNamespace(inNamespace)
              .withName(name)
              .tokenRequest(
                  new TokenRequestBuilder()
                      .withNewSpec()
                      .withExpirationSeconds(3600L)
                      .endSpec()
                      .build());
      KubernetesClient client = env.clientWithToken(token.getStatus().getToken());
      clients.add(client);
      return client;
    }

    @Override
    public void close() {
      clients.forEach(KubernetesClient::close);
      try {
        admin.rbac().clusterRoleBindings().list().getItems().stream()
            .filter(b -> b.getMetadata().getName().startsWith(namespace + "-"))
            .forEach(b -> admin.resource(b).delete());
        admin.rbac().clusterRoles().list().getItems().stream()
            .filter(r -> r.getMetadata().getName().startsWith(namespace + "-"))
            .forEach(r -> admin.resource(r).delete());
        admin.namespaces().withName(namespace).delete();
        others.forEach(other -> admin.namespaces().withName(other).delete());
      } finally {
        admin.close();
      }
    }
  }
}
