package dev.tally.report.kyverno;

import static dev.tally.report.kyverno.KyvernoPolicyWatchTest.REQUIRE_LABELS;
import static dev.tally.report.kyverno.KyvernoPolicyWatchTest.clusterPolicy;
import static dev.tally.report.kyverno.KyvernoPolicyWatchTest.create;
import static dev.tally.report.kyverno.KyvernoPolicyWatchTest.delete;
import static dev.tally.report.kyverno.KyvernoPolicyWatchTest.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Liveness;
import dev.tally.report.fabric8.input.LivenessWatch;
import dev.tally.testenv.Await;
import dev.tally.testenv.RealKubernetes;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code kyverno.KyvernoPolicyWatch} against a real kube-apiserver: real discovery (404 for a
 * group/version not served, the built-in admission policy kinds), real watches. Kyverno's CRDs are
 * not in the repository: the test installs minimal stand-ins of ClusterPolicy and Policy (see
 * {@link KyvernoPolicyWatchTest#standInCrds}), not Kyverno's own CRDs, and removes them afterwards
 * so that no other test on the shared control plane sees them.
 */
@ExtendWith(RealKubernetes.class)
class KyvernoPolicyWatchRealServerTest {
  @Test
  void policiesAreLiveWhileTheyExistOnARealServer(RealKubernetes.Cluster cluster) throws Exception {
    KubernetesClient admin = cluster.admin();
    String ns = cluster.namespace();
    CoverageKey namespaced = CoverageKey.of("kyverno", ns + "/no-latest");
    List<Liveness> answers = new CopyOnWriteArrayList<>();
    try {
      installAndAwaitServed(admin);
      create(admin, clusterPolicy("require-labels"));
      create(admin, policy(ns, "no-latest"));
      try (LivenessWatch watch =
          KyvernoInput.keep().livenessWatch(admin, answers::add).orElseThrow()) {
        watch.start(Duration.ofSeconds(60));
        assertThat(answers).hasSize(1);
        Liveness first = answers.get(0);
        assertThat(first.governedSources().orElseThrow())
            .contains("kyverno")
            .doesNotContain("KyvernoValidatingPolicy"); // no policies.kyverno.io group: a 404
        assertThat(first.isLive(REQUIRE_LABELS)).isTrue();
        assertThat(first.isLive(namespaced)).isTrue();
        assertThat(first.isLive(CoverageKey.of("kyverno", "gone"))).isFalse();
        assertThat(first.isLive(CoverageKey.of("KyvernoValidatingPolicy", "v"))).isTrue();
        assertThat(first.isLive(CoverageKey.of("trivy", "CVE-1"))).isTrue();

        delete(admin, policy(ns, "no-latest"));
        Await.until("the deleted Policy is not live", () -> !latest(answers).isLive(namespaced));
        assertThat(latest(answers).isLive(REQUIRE_LABELS)).isTrue();
        create(admin, policy(ns, "no-latest"));
        Await.until("the recreated Policy is live", () -> latest(answers).isLive(namespaced));
        assertThat(latest(answers)).isEqualTo(first);
      }
    } finally {
      uninstall(admin);
    }
  }

  private static Liveness latest(List<Liveness> answers) {
    return answers.get(answers.size() - 1);
  }

  static void installAndAwaitServed(KubernetesClient admin) {
    for (CustomResourceDefinition crd : KyvernoPolicyWatchTest.standInCrds()) {
      admin.resource(crd).createOr(existing -> existing.update());
    }
    // Established is not yet servable: until its watch cache is ready the server answers 429
    Await.until(
        "the stand-in Kyverno policy kinds are served",
        () -> {
          try {
            APIResourceList list = admin.getApiResources("kyverno.io/v1");
            if (list == null || list.getResources().size() < 2) {
              return false;
            }
            admin.genericKubernetesResources("kyverno.io/v1", "ClusterPolicy").list();
            admin.genericKubernetesResources("kyverno.io/v1", "Policy").inAnyNamespace().list();
            return true;
          } catch (KubernetesClientException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }

  static void uninstall(KubernetesClient admin) {
    for (CustomResourceDefinition crd : KyvernoPolicyWatchTest.standInCrds()) {
      admin.resource(crd).delete();
    }
    Await.until(
        "the stand-in Kyverno policy kinds are no longer served",
        () -> {
          try {
            return admin.getApiResources("kyverno.io/v1") == null;
          } catch (KubernetesClientException e) {
            return false;
          }
        },
        Duration.ofSeconds(60));
  }
}
