package dev.tally.report.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LivenessTest {
  private static final CoverageKey LIVE = CoverageKey.of("kyverno", "require-labels");
  private static final CoverageKey DEAD = CoverageKey.of("kyverno", "gone");
  private static final CoverageKey TRIVY = CoverageKey.of("trivy", "CVE-1");
  private static final CoverageKey NO_SOURCE = CoverageKey.of("", "p");

  @Test
  void allAndOnlyGovernEverySource() {
    assertThat(Liveness.all().isLive(TRIVY)).isTrue();
    Liveness only = Liveness.only(Set.of(LIVE));
    assertThat(only.isLive(LIVE)).isTrue();
    assertThat(only.isLive(DEAD)).isFalse();
    assertThat(only.isLive(TRIVY)).isFalse();
    assertThat(only.isLive(NO_SOURCE)).isFalse();
    assertThat(only.governs("trivy")).isTrue();
    assertThat(only.governedSources()).isEmpty();
    // the two-parameter constructor is the record as it was
    assertThat(new Liveness(Optional.of(Set.of(LIVE)), Set.of())).isEqualTo(only);
  }

  @Test
  void onlyAmongDecidesForItsSourcesAndLeavesEveryOtherSourceLive() {
    Liveness scoped = Liveness.onlyAmong(Set.of("kyverno"), Set.of(LIVE));
    assertThat(scoped.isLive(LIVE)).isTrue();
    assertThat(scoped.isLive(DEAD)).isFalse();
    assertThat(scoped.isLive(DEAD, "any-rule")).isFalse();
    assertThat(scoped.isLive(TRIVY)).isTrue();
    assertThat(scoped.isLive(TRIVY, "r")).isTrue();
    assertThat(scoped.isLive(NO_SOURCE)).isTrue();
    assertThat(scoped.governs("kyverno")).isTrue();
    assertThat(scoped.governs("trivy")).isFalse();
  }

  @Test
  void aGovernedSourceWithNoLivePolicyHidesAllOfIt() {
    Liveness scoped = Liveness.onlyAmong(Set.of("kyverno", "KyvernoValidatingPolicy"), Set.of());
    assertThat(scoped.isLive(LIVE)).isFalse();
    assertThat(scoped.isLive(CoverageKey.of("KyvernoValidatingPolicy", "v"))).isFalse();
    assertThat(scoped.isLive(TRIVY)).isTrue();
    // governing no source at all hides nothing
    assertThat(Liveness.onlyAmong(Set.of(), Set.of()).isLive(LIVE)).isTrue();
  }

  @Test
  void theEmptySourceCanBeGoverned() {
    Liveness scoped = Liveness.onlyAmong(Set.of(""), Set.of(NO_SOURCE));
    assertThat(scoped.isLive(NO_SOURCE)).isTrue();
    assertThat(scoped.isLive(CoverageKey.of("", "other"))).isFalse();
    assertThat(scoped.isLive(LIVE)).isTrue();
  }

  @Test
  void retiringARuleKeepsTheScope() {
    Liveness scoped =
        Liveness.onlyAmong(Set.of("kyverno"), Set.of(LIVE)).withRetiredRule(TRIVY, "old");
    assertThat(scoped.governedSources()).contains(Set.of("kyverno"));
    assertThat(scoped.isLive(DEAD)).isFalse();
    assertThat(scoped.isLive(TRIVY, "old")).isFalse(); // a retired rule is retired in any source
    assertThat(scoped.isLive(TRIVY, "new")).isTrue();
    assertThat(scoped.isLive(LIVE, "old")).isTrue();
  }

  @Test
  void equalScopesAreEqual() {
    assertThat(Liveness.onlyAmong(Set.of("kyverno"), Set.of(LIVE)))
        .isEqualTo(Liveness.onlyAmong(new java.util.HashSet<>(Set.of("kyverno")), Set.of(LIVE)))
        .isNotEqualTo(Liveness.only(Set.of(LIVE)))
        .isNotEqualTo(Liveness.onlyAmong(Set.of("kyverno", "trivy"), Set.of(LIVE)));
  }

  @Test
  void aLiveKeyOfAnUngovernedSourceIsRefused() {
    assertThatThrownBy(() -> Liveness.onlyAmong(Set.of("kyverno"), Set.of(LIVE, TRIVY)))
        .isInstanceOfSatisfying(
            InvalidReportException.class,
            e -> {
              assertThat(e.field()).isEqualTo("livePolicies");
              assertThat(e.getMessage()).contains("trivy/CVE-1", "governedSources");
            });
  }

  @Test
  void anInvalidSourceIsRefusedNamingTheField() {
    assertThatThrownBy(() -> Liveness.onlyAmong(Set.of("x".repeat(254)), Set.of()))
        .isInstanceOfSatisfying(
            InvalidReportException.class, e -> assertThat(e.field()).isEqualTo("governedSources"));
    assertThatThrownBy(() -> Liveness.onlyAmong(Set.of("a\uD800"), Set.of()))
        .isInstanceOfSatisfying(
            InvalidReportException.class, e -> assertThat(e.field()).isEqualTo("governedSources"));
    assertThatThrownBy(() -> Liveness.onlyAmong(null, Set.of()))
        .isInstanceOfSatisfying(
            InvalidReportException.class, e -> assertThat(e.field()).isEqualTo("governedSources"));
    assertThatThrownBy(() -> Liveness.onlyAmong(Set.of(), null))
        .isInstanceOfSatisfying(
            InvalidReportException.class, e -> assertThat(e.field()).isEqualTo("livePolicies"));
  }
}
