package dev.tally.report.kyverno;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Liveness;
import dev.tally.report.fabric8.MockCluster;
import dev.tally.report.fabric8.input.LivenessWatch;
import dev.tally.testenv.Await;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code kyverno.KyvernoPolicyWatch} on the mock API server in CRUD mode. The mock answers
 * discovery of any group/version with an empty resource list (not a 404), and lists the kinds of
 * the CRDs created on it; it serves no built-in admission policy kinds, so only the CRDs made here
 * are watched.
 */
@EnableKubernetesMockClient(crud = true)
class KyvernoPolicyWatchTest {
  private static final Duration SYNC = Duration.ofSeconds(60);
  static final CoverageKey REQUIRE_LABELS = CoverageKey.of("kyverno", "require-labels");
  static final CoverageKey SHOP_POLICY = CoverageKey.of("kyverno", "shop/no-latest");
  static final CoverageKey OTHER = CoverageKey.of("kyverno", "other");
  static final CoverageKey VPOL = CoverageKey.of("KyvernoValidatingPolicy", "vpol");
  static final CoverageKey TRIVY = CoverageKey.of("trivy", "CVE-1");

  KubernetesMockServer server;
  private KubernetesClient client;
  private final List<Liveness> answers = new CopyOnWriteArrayList<>();
  private LivenessWatch watch;

  @BeforeEach
  void setUp() {
    client = MockCluster.client(server);
    watch = KyvernoInput.keep().livenessWatch(client, answers::add).orElseThrow();
  }

  @AfterEach
  void tearDown() {
    watch.close();
    MockCluster.close(client);
  }

  @Test
  void withoutKyvernosKindsItGovernsNoSourceAndHidesNothing() throws Exception {
    watch.start(SYNC);
    assertThat(answers).hasSize(1);
    Liveness only = answers.get(0);
    assertThat(only.governedSources()).contains(Set.of());
    assertThat(only.isLive(REQUIRE_LABELS)).isTrue();
    assertThat(only.isLive(TRIVY)).isTrue();
  }

  @Test
  void aPolicyIsLiveWhileItExistsAndOnlyTheWatchedKindsSourcesAreGoverned() throws Exception {
    installStandInCrds(client);
    create(client, clusterPolicy("require-labels"));
    create(client, policy("shop", "no-latest"));
    watch.start(SYNC);

    assertThat(answers).hasSize(1);
    Liveness first = answers.get(0);
    assertThat(first.governedSources()).contains(Set.of("kyverno"));
    assertThat(first.livePolicies()).contains(Set.of(REQUIRE_LABELS, SHOP_POLICY));
    assertThat(first.isLive(OTHER)).isFalse();
    assertThat(first.isLive(VPOL)).isTrue(); // no ValidatingPolicy CRD: not governed
    assertThat(first.isLive(TRIVY)).isTrue();

    delete(client, clusterPolicy("require-labels"));
    Await.until("the deleted policy is no longer live", () -> !latest().isLive(REQUIRE_LABELS));
    assertThat(latest().isLive(SHOP_POLICY)).isTrue();

    create(client, clusterPolicy("require-labels"));
    Await.until("the recreated policy is live again", () -> latest().isLive(REQUIRE_LABELS));
    assertThat(latest()).isEqualTo(first);
  }

  @Test
  void theConsumerIsCalledOnlyWhenTheAnswerChanges() throws Exception {
    installStandInCrds(client);
    create(client, clusterPolicy("require-labels"));
    watch.start(SYNC);
    assertThat(answers).hasSize(1);

    // an update changes no key; the creation after it (same informer, so handled after it) does
    GenericKubernetesResource updated = clusterPolicy("require-labels");
    updated.getMetadata().setLabels(Map.of("changed", "yes"));
    client.resource(updated).update();
    create(client, clusterPolicy("other"));
    Await.until("the new policy is live", () -> latest().isLive(OTHER));
    assertThat(answers).hasSize(2);

    // a namespaced policy created and deleted: two changes, and back where it was
    create(client, policy("shop", "no-latest"));
    Await.until("the namespaced policy is live", () -> latest().isLive(SHOP_POLICY));
    delete(client, policy("shop", "no-latest"));
    Await.until("the namespaced policy is gone", () -> !latest().isLive(SHOP_POLICY));
    assertThat(answers).hasSize(4);
    assertThat(answers.get(3)).isEqualTo(answers.get(1));
    for (int i = 1; i < answers.size(); i++) {
      assertThat(answers.get(i)).isNotEqualTo(answers.get(i - 1));
    }
  }

  @Test
  void discoveryAsksEachGroupVersionAtMostOnceAndStopsAtTheFirstThatServesAKind() throws Exception {
    installStandInCrds(client);
    drainRequests();
    watch.start(SYNC);
    Map<String, Integer> discovery = new TreeMap<>();
    for (RecordedRequest r = server.takeRequest(0, TimeUnit.SECONDS);
        r != null;
        r = server.takeRequest(0, TimeUnit.SECONDS)) {
      String path = r.getPath();
      if (r.getMethod().equals("GET") && path.matches("/apis/[^/]+/[^/?]+")) {
        discovery.merge(path, 1, Integer::sum);
      }
    }
    assertThat(discovery.values()).allMatch(n -> n == 1);
    // ClusterPolicy and Policy are found at kyverno.io/v1: v2beta1 is never asked
    assertThat(discovery)
        .containsKey("/apis/kyverno.io/v1")
        .doesNotContainKey("/apis/kyverno.io/v2beta1");
    // the kinds not found are looked for at every version they might be served at
    assertThat(discovery)
        .containsKeys(
            "/apis/policies.kyverno.io/v1",
            "/apis/policies.kyverno.io/v1beta1",
            "/apis/policies.kyverno.io/v1alpha1",
            "/apis/admissionregistration.k8s.io/v1");
  }

  @Test
  void startingTwiceIsRefused() throws Exception {
    watch.start(SYNC);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> watch.start(SYNC))
        .isInstanceOf(IllegalStateException.class);
  }

  private Liveness latest() {
    return answers.get(answers.size() - 1);
  }

  private void drainRequests() throws InterruptedException {
    while (server.takeRequest(0, TimeUnit.SECONDS) != null) {
      // forget what came before
    }
  }

  /** Minimal stand-ins for Kyverno's ClusterPolicy and Policy CRDs: not Kyverno's own CRDs. */
  static List<CustomResourceDefinition> standInCrds() {
    return List.of(
        standInCrd("kyverno.io", "ClusterPolicy", "clusterpolicies", "Cluster"),
        standInCrd("kyverno.io", "Policy", "policies", "Namespaced"));
  }

  static void installStandInCrds(KubernetesClient client) {
    for (CustomResourceDefinition crd : standInCrds()) {
      client.resource(crd).create();
    }
  }

  /** A CRD of {@code group}/v1 that keeps every field: a stand-in for one of Kyverno's kinds. */
  static CustomResourceDefinition standInCrd(
      String group, String kind, String plural, String scope) {
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata()
        .withName(plural + "." + group)
        .endMetadata()
        .withNewSpec()
        .withGroup(group)
        .withScope(scope)
        .withNewNames()
        .withKind(kind)
        .withPlural(plural)
        .withSingular(kind.toLowerCase(java.util.Locale.ROOT))
        .withListKind(kind + "List")
        .endNames()
        .addNewVersion()
        .withName("v1")
        .withServed(true)
        .withStorage(true)
        .withNewSchema()
        .withNewOpenAPIV3Schema()
        .withType("object")
        .withXKubernetesPreserveUnknownFields(true)
        .endOpenAPIV3Schema()
        .endSchema()
        .endVersion()
        .endSpec()
        .build();
  }

  static GenericKubernetesResource clusterPolicy(String name) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion("kyverno.io/v1")
        .withKind("ClusterPolicy")
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", Map.of("rules", List.of())))
        .build();
  }

  static GenericKubernetesResource policy(String namespace, String name) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion("kyverno.io/v1")
        .withKind("Policy")
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", Map.of("rules", List.of())))
        .build();
  }

  static void create(KubernetesClient client, GenericKubernetesResource policy) {
    resources(client, policy).resource(policy).create();
  }

  static void delete(KubernetesClient client, GenericKubernetesResource policy) {
    resources(client, policy).resource(policy).delete();
  }

  private static io.fabric8.kubernetes.client.dsl.MixedOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>>
      resources(KubernetesClient client, GenericKubernetesResource policy) {
    boolean namespaced = policy.getKind().equals("Policy");
    var context =
        new ResourceDefinitionContext.Builder()
            .withGroup("kyverno.io")
            .withVersion("v1")
            .withKind(policy.getKind())
            .withPlural(namespaced ? "policies" : "clusterpolicies")
            .withNamespaced(namespaced)
            .build();
    return client.genericKubernetesResources(context);
  }
}
