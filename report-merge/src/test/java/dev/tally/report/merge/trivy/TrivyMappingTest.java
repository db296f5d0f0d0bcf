package dev.tally.report.merge.trivy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The mapping rule of trivy-operator's config audit reports (docs/DESIGN.md). */
class TrivyMappingTest {
  private static final ConfigAudit.Owner OWNER =
      new ConfigAudit.Owner("apps/v1", "ReplicaSet", "web-6d4cf56db6", "u-1", true);
  private static final Timestamp UPDATED = Timestamp.ofSeconds(1_900_000_000L);
  private static final Timestamp CREATED = Timestamp.ofSeconds(1_800_000_000L);

  private static ConfigAudit.Check check(String id, String severity, boolean success) {
    return new ConfigAudit.Check(
        id,
        "Title of " + id,
        severity,
        success,
        "Kubernetes Security Check",
        List.of("first", "second"),
        "Container",
        "nginx");
  }

  private static ConfigAudit audit(List<ConfigAudit.Check> checks) {
    return new ConfigAudit(
        "shop",
        "replicaset-web-6d4cf56db6",
        List.of(OWNER),
        Optional.of(UPDATED),
        Optional.of(CREATED),
        checks);
  }

  @Test
  void eachCheckIsAResultAboutTheOwnerInTheReportsNamespaceCoveredByTheWholeScan() {
    PartialReport partial =
        TrivyMapping.map(
            audit(List.of(check("KSV001", "CRITICAL", false), check("KSV003", "LOW", true))));

    assertThat(partial.producer()).isEqualTo("trivy-operator/config-audit");
    assertThat(partial.subject())
        .isEqualTo(Subject.of("apps/v1", "ReplicaSet", "shop", "web-6d4cf56db6", "u-1"));
    assertThat(partial.coverage()).containsExactly(CoverageKey.of("trivy", "config-audit"));
    assertThat(partial.observedAt()).isEqualTo(UPDATED);
    Result first = partial.results().get(0);
    assertThat(first.source()).isEqualTo("trivy");
    assertThat(first.policy()).isEqualTo("config-audit");
    assertThat(first.rule()).isEqualTo("KSV001");
    assertThat(first.status()).isEqualTo(ResultStatus.FAIL);
    assertThat(first.severity()).contains(Severity.CRITICAL);
    assertThat(first.category()).isEqualTo("Kubernetes Security Check");
    assertThat(first.message()).isEqualTo("first; second");
    assertThat(first.properties())
        .isEqualTo(Map.of("title", "Title of KSV001", "scope", "Container/nginx"));
    assertThat(first.timestamp()).contains(UPDATED);
    assertThat(partial.results().get(1).status()).isEqualTo(ResultStatus.PASS);
    assertThat(partial.results().get(1).severity()).contains(Severity.LOW);
  }

  @Test
  void theControllerOwnerIsTheSubjectElseTheFirstOwner() {
    ConfigAudit.Owner other = new ConfigAudit.Owner("v1", "ConfigMap", "other", "u-2", false);
    ConfigAudit controlled =
        new ConfigAudit(
            "shop", "r", List.of(other, OWNER), Optional.of(UPDATED), Optional.empty(), List.of());
    ConfigAudit uncontrolled =
        new ConfigAudit(
            "shop", "r", List.of(other), Optional.of(UPDATED), Optional.empty(), List.of());

    assertThat(TrivyMapping.map(controlled).subject().uid()).isEqualTo("u-1");
    assertThat(TrivyMapping.map(uncontrolled).subject().uid()).isEqualTo("u-2");
  }

  @Test
  void aReportWithNoChecksStillCoversTheScanSoItRetractsEveryEarlierFailure() {
    PartialReport partial = TrivyMapping.map(audit(List.of()));

    assertThat(partial.results()).isEmpty();
    assertThat(partial.coverage()).containsExactly(CoverageKey.of("trivy", "config-audit"));
  }

  @Test
  void unknownSeverityIsNoneAndTheTitleStandsInForMissingMessages() {
    ConfigAudit.Check check =
        new ConfigAudit.Check("KSV100", "No messages", "UNKNOWN", false, "", List.of(), "", "");

    Result result = TrivyMapping.map(audit(List.of(check))).results().get(0);

    assertThat(result.severity()).isEmpty();
    assertThat(result.message()).isEqualTo("No messages");
    assertThat(result.properties()).isEqualTo(Map.of("title", "No messages"));
  }

  @Test
  void withoutAnUpdateTimeTheReportsCreationTimeIsWhenTheScanWasMade() {
    ConfigAudit audit =
        new ConfigAudit(
            "shop", "r", List.of(OWNER), Optional.empty(), Optional.of(CREATED), List.of());

    assertThat(TrivyMapping.map(audit).observedAt()).isEqualTo(CREATED);
  }

  @Test
  void badInputIsRefusedNamingTheField() {
    assertThatThrownBy(() -> TrivyMapping.map(audit(List.of(check("KSV001", "SEVERE", false)))))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("report.checks[0].severity")
        .hasMessageContaining("'SEVERE'");
    assertThatThrownBy(() -> TrivyMapping.map(audit(List.of(check("", "LOW", false)))))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("report.checks[0].checkID");
    assertThatThrownBy(
            () ->
                TrivyMapping.map(
                    new ConfigAudit(
                        "shop", "r", List.of(), Optional.of(UPDATED), Optional.empty(), List.of())))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("metadata.ownerReferences");
    assertThatThrownBy(
            () ->
                TrivyMapping.map(
                    new ConfigAudit(
                        "shop",
                        "r",
                        List.of(OWNER),
                        Optional.empty(),
                        Optional.empty(),
                        List.of())))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("report.updateTimestamp");
  }

  /**
   * A namespaced report owned by a cluster-scoped object (a tenant's forged owner reference naming
   * {@code Namespace kube-system}) is refused: before, its results were scoped to that Namespace in
   * the tenant's report.
   */
  @Test
  void aReportOwnedByAClusterScopedKindIsRefused() {
    for (ConfigAudit.Owner owner :
        List.of(
            new ConfigAudit.Owner("v1", "Namespace", "kube-system", "u-ns", true),
            new ConfigAudit.Owner("v1", "Node", "node-1", "u-node", true),
            new ConfigAudit.Owner(
                "rbac.authorization.k8s.io/v1", "ClusterRole", "admin", "u-cr", true))) {
      assertThatThrownBy(
              () ->
                  TrivyMapping.map(
                      new ConfigAudit(
                          "shop",
                          "r",
                          List.of(owner),
                          Optional.of(UPDATED),
                          Optional.empty(),
                          List.of())))
          .isInstanceOf(InvalidReportException.class)
          .hasMessageContaining("metadata.ownerReferences")
          .hasMessageContaining("cluster-scoped");
    }
    // a custom kind of the same name in another group is not one
    PartialReport custom =
        TrivyMapping.map(
            new ConfigAudit(
                "shop",
                "r",
                List.of(new ConfigAudit.Owner("example.com/v1", "Node", "n", "u-x", true)),
                Optional.of(UPDATED),
                Optional.empty(),
                List.of()));
    assertThat(custom.subject().kind()).isEqualTo("Node");
  }
}
