package dev.tally.report.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The layouts, the groupings that choose them, and which objects each layout owns. */
class ReportLayoutTest {
  private static final Subject POD = Subject.of("v1", "Pod", "shop", "web-0", "uid-1");

  private static AggregateReport labelled(Map<String, String> labels) {
    return new AggregateReport(
        new ReportRef(ReportKind.POLICY_REPORT, "shop", "r"),
        labels,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        List.of(),
        Summary.EMPTY,
        "");
  }

  @Test
  void aLayoutSaysWhetherItNamesItsWriterAndWhetherItNeedsASubjectScopedGrouping() {
    assertThat(ReportLayout.TALLY.namesItsWriter()).isTrue();
    assertThat(ReportLayout.TALLY.needsSubjectScope()).isFalse();
    assertThat(ReportLayout.KYVERNO.namesItsWriter()).isFalse();
    assertThat(ReportLayout.KYVERNO.needsSubjectScope()).isTrue();
  }

  @Test
  void eachLayoutIsManagedByItsOwnLabelValue() {
    assertThat(ReportLayout.TALLY.managedBy())
        .isEqualTo("tally")
        .isEqualTo(WireNames.MANAGED_BY_VALUE);
    assertThat(ReportLayout.KYVERNO.managedBy())
        .isEqualTo("kyverno")
        .isEqualTo(WireNames.MANAGED_BY_KYVERNO);
  }

  @Test
  void kyvernoPerResourceIsOneReportPerResourceNamedByItsUidInKyvernosLayout() {
    Grouping g = Grouping.kyvernoPerResource();
    assertThat(g.id()).isEqualTo("kyverno");
    assertThat(g.groupOf(POD, CoverageKey.of("kyverno", "p"))).isEqualTo("uid-1");
    assertThat(g.scopedToSubject()).isTrue();
    assertThat(g.layout()).isEqualTo(ReportLayout.KYVERNO);
    assertThat(g).hasToString("Grouping.kyvernoPerResource()");
  }

  @Test
  void everyOtherBuiltInAndCustomGroupingIsInTallysLayout() {
    for (Grouping g :
        List.of(
            Grouping.perSubject(),
            Grouping.perNamespace(),
            Grouping.perNamespaceAndPolicy(),
            Grouping.custom("mine", (s, k) -> "x"))) {
      assertThat(g.layout()).as("%s", g).isEqualTo(ReportLayout.TALLY);
    }
  }

  @Test
  void anObjectIsOwnedByTheLayoutWhoseManagedByValueItCarries() {
    AggregateReport tallys =
        labelled(Map.of(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_VALUE));
    AggregateReport kyvernos =
        labelled(Map.of(WireNames.MANAGED_BY_LABEL, WireNames.MANAGED_BY_KYVERNO));
    AggregateReport foreign = labelled(Map.of("app", "web"));

    assertThat(tallys.ownedBy(ReportLayout.TALLY)).isTrue();
    assertThat(tallys.ownedByTally()).isTrue();
    assertThat(tallys.ownedBy(ReportLayout.KYVERNO)).isFalse();
    assertThat(kyvernos.ownedBy(ReportLayout.KYVERNO)).isTrue();
    assertThat(kyvernos.ownedBy(ReportLayout.TALLY)).isFalse();
    assertThat(kyvernos.ownedByTally()).isFalse();
    assertThat(foreign.ownedBy(ReportLayout.TALLY)).isFalse();
    assertThat(foreign.ownedBy(ReportLayout.KYVERNO)).isFalse();
  }

  @Test
  void kyvernosLayoutWithoutAGroupScopedToItsSubjectIsRefusedWhenTheConfigurationIsBuilt() {
    Grouping unscoped =
        new Grouping() {
          @Override
          public String groupOf(Subject subject, CoverageKey key) {
            return "all";
          }

          @Override
          public String id() {
            return "all";
          }

          @Override
          public ReportLayout layout() {
            return ReportLayout.KYVERNO;
          }
        };
    assertThatThrownBy(() -> ReportAggregator.builder().grouping(unscoped).config())
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("grouping.layout");
    assertThat(
            AggregatorConfig.layoutOf(
                ReportAggregator.builder()
                    .grouping(Grouping.kyvernoPerResource())
                    .config()
                    .grouping()))
        .isEqualTo(ReportLayout.KYVERNO);
  }

  @Test
  void aGroupingWithoutALayoutIsRefusedNamingTheField() {
    Grouping noLayout =
        new Grouping() {
          @Override
          public String groupOf(Subject subject, CoverageKey key) {
            return "all";
          }

          @Override
          public String id() {
            return "all";
          }

          @Override
          public ReportLayout layout() {
            return null;
          }
        };
    assertThatThrownBy(() -> ReportAggregator.builder().grouping(noLayout).config())
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("grouping.layout");
  }
}
