package dev.tally.report.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A format is a value with behaviour: docs/DESIGN.md §4.2. */
class ReportFormatTest {
  @Test
  void theBuiltInFormatsSayTheirKindsAndFields() {
    assertThat(ReportFormat.values()).startsWith(ReportFormat.WGPOLICY, ReportFormat.OPENREPORTS);
    assertThat(ReportFormat.WGPOLICY.name()).isEqualTo("wgpolicy");
    assertThat(ReportFormat.WGPOLICY.kindFor("shop")).isEqualTo(ReportKind.POLICY_REPORT);
    assertThat(ReportFormat.WGPOLICY.kindFor("")).isEqualTo(ReportKind.CLUSTER_POLICY_REPORT);
    assertThat(ReportFormat.WGPOLICY.carriesConfiguration()).isFalse();
    assertThat(ReportFormat.OPENREPORTS.kinds())
        .containsExactly(ReportKind.REPORT, ReportKind.CLUSTER_REPORT);
    assertThat(ReportFormat.OPENREPORTS.carriesConfiguration()).isTrue();
  }

  @Test
  void aFormatIsFoundByItsNameOrByOneOfItsKinds() {
    assertThat(ReportFormat.named("openreports")).isSameAs(ReportFormat.OPENREPORTS);
    assertThat(ReportFormat.of(ReportKind.CLUSTER_POLICY_REPORT)).contains(ReportFormat.WGPOLICY);
    assertThat(ReportFormat.of(new ReportKind("example.com", "v1", "Other", "others", true)))
        .isEmpty();
    assertThatThrownBy(() -> ReportFormat.named("sarif"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'sarif'")
        .hasMessageContaining("wgpolicy")
        .hasMessageContaining("openreports");
  }

  @Test
  void aNewFormatIsOneSubclassAndIsFoundOnceMade() {
    ReportKind audit =
        new ReportKind("audit.example.com", "v1", "AuditReport", "auditreports", true);
    ReportKind clusterAudit =
        new ReportKind(
            "audit.example.com", "v1", "ClusterAuditReport", "clusterauditreports", false);
    ReportFormat made = new ReportFormat("example-audit", audit, clusterAudit) {};

    assertThat(ReportFormat.named("example-audit")).isSameAs(made);
    assertThat(ReportFormat.of(clusterAudit)).contains(made);
    assertThat(made.kindFor("")).isEqualTo(clusterAudit);
    assertThat(made.carriesConfiguration()).isFalse();
    assertThatThrownBy(() -> new ReportFormat("backwards", clusterAudit, audit) {})
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backwards");
  }

  @Test
  void kindsOrderAsMadeTheBuiltInOnesFirstAndEqualKindsAreEqual() {
    assertThat(ReportKind.values())
        .isSorted()
        .containsExactly(
            ReportKind.POLICY_REPORT,
            ReportKind.CLUSTER_POLICY_REPORT,
            ReportKind.REPORT,
            ReportKind.CLUSTER_REPORT);
    ReportKind again = new ReportKind("wgpolicyk8s.io", "v1alpha2", "PolicyReport", "x", true);
    assertThat(again)
        .isEqualTo(ReportKind.POLICY_REPORT)
        .hasSameHashCodeAs(ReportKind.POLICY_REPORT);
    assertThat(again.compareTo(ReportKind.POLICY_REPORT)).isZero();
    // equal kinds share their place in the order, so sorting does not depend on which one is held
    assertThat(again.compareTo(ReportKind.CLUSTER_REPORT)).isNegative();
    assertThat(ReportKind.CLUSTER_REPORT.compareTo(again)).isPositive();
    assertThat(ReportKind.POLICY_REPORT.compareTo(ReportKind.CLUSTER_REPORT)).isNegative();
  }
}
