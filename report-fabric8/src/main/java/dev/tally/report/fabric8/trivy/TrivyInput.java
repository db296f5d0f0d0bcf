package dev.tally.report.fabric8.trivy;

import dev.tally.report.fabric8.input.InputKind;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.input.Statement;
import dev.tally.report.merge.trivy.TrivyMapping;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Makes an {@link dev.tally.report.fabric8.AggregatorController} read trivy-operator's {@code
 * ConfigAuditReport}s ({@code aquasecurity.github.io/v1alpha1}, in every namespace) instead of
 * Tally's partial reports, so that Tally writes PolicyReports (or openreports Reports) from them,
 * as trivy-operator's polr-adapter users do today, with retraction and bounded sizes. What each
 * report says is {@link TrivyMapping}'s rule (docs/DESIGN.md, "trivy-operator's config audit
 * reports").
 *
 * <p>The reports stay and are the state: trivy-operator replaces a report when it scans its
 * resource again, and garbage collection removes it with its resource, whose removal retracts what
 * it said (the default {@link dev.tally.report.fabric8.input.InputLifecycle#NONE}). Every report
 * names its resource's uid through its owner reference, so nothing waits for adoption and the
 * aggregator reads nothing but the reports: {@link #rbacYaml()} grants {@code list} and {@code
 * watch} on them and the aggregates' writes.
 */
public final class TrivyInput implements ReportInput {
  /** trivy-operator's namespaced config audit reports. */
  public static final ResourceDefinitionContext CONFIG_AUDIT_REPORTS =
      new ResourceDefinitionContext.Builder()
          .withGroup("aquasecurity.github.io")
          .withVersion("v1alpha1")
          .withKind("ConfigAuditReport")
          .withPlural("configauditreports")
          .withNamespaced(true)
          .build();

  @Override
  public String name() {
    return "trivy";
  }

  @Override
  public List<InputKind> kinds(KubernetesClient client) {
    var reports = client.genericKubernetesResources(CONFIG_AUDIT_REPORTS).inAnyNamespace();
    return List.of(
        new InputKind("configauditreports", reports::list, () -> reports.runnableInformer(0)));
  }

  @Override
  public Statement decode(HasMetadata object) {
    return new Statement.Ready(TrivyMapping.map(TrivyCodec.read(object)));
  }

  /**
   * The ClusterRoles this input needs, shipped in the jar: {@code tally-trivy-aggregator}, bound
   * cluster-wide, and {@code tally-trivy-aggregator-lease} for leader election in the aggregator's
   * namespace.
   */
  public static String rbacYaml() {
    try (InputStream in =
        TrivyInput.class.getResourceAsStream("/META-INF/tally/rbac/trivy-aggregator.yaml")) {
      if (in == null) {
        throw new IllegalStateException("META-INF/tally/rbac/trivy-aggregator.yaml is missing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String toString() {
    return "TrivyInput[configauditreports]";
  }
}
