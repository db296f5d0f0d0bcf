package dev.tally.report.merge.kyverno;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Liveness;
import dev.tally.report.merge.kyverno.KyvernoPolicies.Kind;
import dev.tally.report.merge.kyverno.KyvernoPolicies.Policy;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KyvernoPoliciesTest {
  private static final Set<Kind> ALL = EnumSet.allOf(Kind.class);

  @Test
  void aClusterPolicyIsLiveUnderItsNameAndANamespacedPolicyUnderNamespaceSlashName() {
    Liveness l =
        KyvernoPolicies.liveness(
            ALL,
            List.of(
                Policy.of("kyverno.io/v1", "ClusterPolicy", "", "require-labels"),
                Policy.of("kyverno.io/v1", "Policy", "shop", "require-labels")));
    assertThat(l.isLive(CoverageKey.of("kyverno", "require-labels"))).isTrue();
    assertThat(l.isLive(CoverageKey.of("kyverno", "shop/require-labels"))).isTrue();
    assertThat(l.isLive(CoverageKey.of("kyverno", "other/require-labels"))).isFalse();
    assertThat(l.isLive(CoverageKey.of("kyverno", "gone"))).isFalse();
    // the same name in another kind's source is another policy
    assertThat(l.isLive(CoverageKey.of("KyvernoValidatingPolicy", "require-labels"))).isFalse();
  }

  @Test
  void eachKindNamesTheSourceKyvernoGivesItsResults() {
    List<Policy> existing = new ArrayList<>();
    for (Kind k : Kind.values()) {
      String apiVersion = k.group() + "/" + k.versions().get(0);
      existing.add(Policy.of(apiVersion, k.kind(), k.namespaced() ? "ns" : "", "p"));
    }
    Liveness l = KyvernoPolicies.liveness(ALL, existing);
    assertThat(l.governedSources())
        .contains(
            Set.of(
                "kyverno",
                "KyvernoValidatingPolicy",
                "KyvernoImageValidatingPolicy",
                "KyvernoGeneratingPolicy",
                "KyvernoMutatingPolicy",
                "ValidatingAdmissionPolicy",
                "MutatingAdmissionPolicy"));
    assertThat(l.livePolicies().orElseThrow())
        .containsExactlyInAnyOrder(
            CoverageKey.of("kyverno", "p"),
            CoverageKey.of("kyverno", "ns/p"),
            CoverageKey.of("KyvernoValidatingPolicy", "p"),
            CoverageKey.of("KyvernoValidatingPolicy", "ns/p"),
            CoverageKey.of("KyvernoImageValidatingPolicy", "p"),
            CoverageKey.of("KyvernoImageValidatingPolicy", "ns/p"),
            CoverageKey.of("KyvernoGeneratingPolicy", "p"),
            CoverageKey.of("KyvernoGeneratingPolicy", "ns/p"),
            CoverageKey.of("KyvernoMutatingPolicy", "p"),
            CoverageKey.of("KyvernoMutatingPolicy", "ns/p"),
            CoverageKey.of("ValidatingAdmissionPolicy", "p"),
            CoverageKey.of("MutatingAdmissionPolicy", "p"));
  }

  @Test
  void theSourcesOfKindsNotWatchedAreNotGoverned() {
    Liveness l = KyvernoPolicies.liveness(EnumSet.of(Kind.CLUSTER_POLICY), List.of());
    assertThat(l.governedSources()).contains(Set.of("kyverno"));
    assertThat(l.isLive(CoverageKey.of("kyverno", "require-labels"))).isFalse();
    assertThat(l.isLive(CoverageKey.of("KyvernoValidatingPolicy", "v"))).isTrue();
    assertThat(l.isLive(CoverageKey.of("ValidatingAdmissionPolicy", "vap"))).isTrue();
    assertThat(l.isLive(CoverageKey.of("trivy", "CVE-1"))).isTrue();
    assertThat(l.isLive(CoverageKey.of("", "nameless"))).isTrue();
  }

  @Test
  void watchingNothingHidesNothing() {
    Liveness l = KyvernoPolicies.liveness(Set.of(), List.of());
    assertThat(l.isLive(CoverageKey.of("kyverno", "require-labels"))).isTrue();
  }

  @Test
  void anyServedVersionNamesTheSamePolicy() {
    assertThat(
            KyvernoPolicies.liveness(
                ALL,
                List.of(Policy.of("policies.kyverno.io/v1alpha1", "ValidatingPolicy", "", "v"))))
        .isEqualTo(
            KyvernoPolicies.liveness(
                ALL,
                List.of(Policy.of("policies.kyverno.io/v1beta1", "ValidatingPolicy", "", "v"))));
    assertThat(Kind.of("kyverno.io/v2beta1", "ClusterPolicy")).contains(Kind.CLUSTER_POLICY);
    assertThat(Kind.of("policies.kyverno.io/v1", "ClusterPolicy")).isEmpty();
    assertThat(Kind.of("v1", "Pod")).isEmpty();
  }

  @Test
  void aPolicyOfAKindNotWatchedIsRefusedNamingIt() {
    assertThatThrownBy(
            () ->
                KyvernoPolicies.liveness(
                    EnumSet.of(Kind.CLUSTER_POLICY),
                    List.of(
                        Policy.of("kyverno.io/v1", "ClusterPolicy", "", "a"),
                        Policy.of("kyverno.io/v1", "Policy", "shop", "b"))))
        .isInstanceOfSatisfying(
            InvalidReportException.class, e -> assertThat(e.field()).isEqualTo("existing[1].kind"));
    assertThatThrownBy(
            () -> KyvernoPolicies.liveness(ALL, List.of(Policy.of("v1", "ConfigMap", "ns", "c"))))
        .isInstanceOfSatisfying(
            InvalidReportException.class, e -> assertThat(e.field()).isEqualTo("existing[0].kind"));
  }

  @Test
  void aNamespaceThatDoesNotFitTheKindIsRefused() {
    assertThatThrownBy(
            () ->
                KyvernoPolicies.liveness(
                    ALL, List.of(Policy.of("kyverno.io/v1", "ClusterPolicy", "shop", "a"))))
        .isInstanceOfSatisfying(
            InvalidReportException.class,
            e -> assertThat(e.field()).isEqualTo("existing[0].namespace"));
    assertThatThrownBy(
            () ->
                KyvernoPolicies.liveness(
                    ALL, List.of(Policy.of("kyverno.io/v1", "Policy", "", "a"))))
        .isInstanceOfSatisfying(
            InvalidReportException.class,
            e -> assertThat(e.field()).isEqualTo("existing[0].namespace"));
  }

  @Test
  void nullsAreRefusedNamingTheField() {
    List<Policy> withNull = new ArrayList<>();
    withNull.add(null);
    assertThatThrownBy(() -> KyvernoPolicies.liveness(ALL, withNull))
        .isInstanceOfSatisfying(
            InvalidReportException.class, e -> assertThat(e.field()).isEqualTo("existing[0]"));
    assertThatThrownBy(() -> KyvernoPolicies.liveness(null, List.of()))
        .isInstanceOfSatisfying(
            InvalidReportException.class, e -> assertThat(e.field()).isEqualTo("watched"));
    assertThatThrownBy(() -> Policy.of("kyverno.io/v1", "Policy", null, "a"))
        .isInstanceOfSatisfying(
            InvalidReportException.class, e -> assertThat(e.field()).isEqualTo("namespace"));
    assertThatThrownBy(() -> Policy.of("kyverno.io/v1", "Policy", "ns", " "))
        .isInstanceOfSatisfying(
            InvalidReportException.class, e -> assertThat(e.field()).isEqualTo("name"));
  }

  @Test
  void aPolicyWhoseKeyNoResultCanHoldIsLeftOut() {
    String longName = "n".repeat(250);
    Liveness l =
        KyvernoPolicies.liveness(
            ALL,
            List.of(
                Policy.of("kyverno.io/v1", "Policy", "shop", longName),
                Policy.of("kyverno.io/v1", "ClusterPolicy", "", longName)));
    assertThat(l.livePolicies().orElseThrow()).containsExactly(CoverageKey.of("kyverno", longName));
  }

  @Test
  void everyKindWatchedGovernsExactlyTheSourcesKyvernoMappingReads() {
    // the sources of the policy-label prefixes KyvernoMapping reads coverage from
    Liveness l =
        KyvernoPolicies.liveness(ALL, List.of(Policy.of("kyverno.io/v1", "Policy", "shop", "p")));
    assertThat(KyvernoMapping.POLICY_SOURCES.values())
        .containsAll(l.governedSources().orElseThrow());
    assertThat(l.governedSources().orElseThrow())
        .containsAll(Set.copyOf(KyvernoMapping.POLICY_SOURCES.values()));
  }
}
