package dev.tally.report.trivy;

import dev.tally.report.fabric8.TallyResources;
import dev.tally.report.fabric8.client.ApiServerJson;
import dev.tally.report.fabric8.client.Requests;
import dev.tally.report.fabric8.input.InputKind;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.input.Statement;
import dev.tally.report.fabric8.resource.InputResource;
import dev.tally.report.merge.trivy.TrivyMapping;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
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
 * it said (the default {@link dev.tally.report.fabric8.input.InputServices#NONE}). Every report
 * names its resource's uid through its owner reference, so nothing waits for adoption and the
 * aggregator reads nothing but the reports: {@link #rbacYaml()} grants {@code list} and {@code
 * watch} on them and the aggregates' writes.
 *
 * <p>The informer holds each report as a {@link ConfigAuditReportResource}: what {@link TrivyCodec}
 * reads, nothing else. trivy-operator's CRD keeps unknown fields at a report's root, so a report
 * can carry fields as large and as deeply nested as the API server stores; they are skipped while
 * the report is parsed, and the client must read such JSON at all: its serialization must be {@link
 * ApiServerJson#serialization()} (or another that reads what the API server stores), as the
 * aggregator program's is. {@link #checkAccess} refuses a client whose serialization does not.
 */
public final class TrivyInput implements ReportInput {
  /** Where the jar holds {@link #rbacYaml()}. */
  public static final String RBAC = "META-INF/tally/rbac/trivy-aggregator.yaml";

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

  /**
   * The reports, read as {@link ConfigAuditReportResource}s, which is registered with the client's
   * serialization ({@link InputResource#register}).
   */
  @Override
  public List<InputKind> kinds(KubernetesClient client) {
    InputResource.register(client, ConfigAuditReportResource.class);
    var reports = client.resources(ConfigAuditReportResource.class).inAnyNamespace();
    return List.of(InputKind.of("configauditreports", reports::list, reports));
  }

  /**
   * Refuses a client whose serialization cannot read every report the API server may store, then
   * makes the LIST {@link ReportInput#checkAccess} makes.
   *
   * @throws IllegalArgumentException if the client's serialization is not one that reads every
   *     object the API server stores ({@link ApiServerJson#readsEveryObject})
   * @throws dev.tally.report.fabric8.client.RequestFailedException naming the LIST, if it failed
   *     for good
   */
  @Override
  public void checkAccess(KubernetesClient client, Requests calls) {
    if (!ApiServerJson.readsEveryObject(client.getKubernetesSerialization())) {
      throw new IllegalArgumentException(
          "trivy: the client cannot read every ConfigAuditReport the API server may store"
              + " (trivy-operator's CRD keeps unknown fields, nested up to "
              + ApiServerJson.MAX_NESTING_DEPTH
              + " deep, named up to "
              + ApiServerJson.MAX_REQUEST_BYTES
              + " characters long), so one report could stop the informer for every namespace:"
              + " build it with new KubernetesClientBuilder()"
              + ".withKubernetesSerialization(ApiServerJson.serialization())");
    }
    ReportInput.super.checkAccess(client, calls);
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
    return TallyResources.read(TrivyInput.class, RBAC);
  }

  @Override
  public String toString() {
    return "TrivyInput[configauditreports]";
  }
}
