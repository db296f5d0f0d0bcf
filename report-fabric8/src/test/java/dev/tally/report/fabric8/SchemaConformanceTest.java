package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.tally.report.api.ReportKind;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.resource.WireResult;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What Tally writes validates against the official CRD schemas in this module's test resources
 * ({@code crds/}), and its partial reports against the CRD it ships. Kubernetes would check this on
 * a real API server; the mock server does not, so the schema is checked here.
 */
class SchemaConformanceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<ReportKind, JsonSchema> OFFICIAL = new java.util.HashMap<>();
  private static JsonSchema partialSchema;
  private static JsonSchema clusterPartialSchema;

  @BeforeAll
  static void loadSchemas() throws IOException {
    OFFICIAL.put(
        ReportKind.POLICY_REPORT,
        schemaOf(TestResources.crd("wgpolicyk8s.io_policyreports.v1alpha2.yaml")));
    OFFICIAL.put(
        ReportKind.CLUSTER_POLICY_REPORT,
        schemaOf(TestResources.crd("wgpolicyk8s.io_clusterpolicyreports.v1alpha2.yaml")));
    OFFICIAL.put(
        ReportKind.REPORT, schemaOf(TestResources.crd("openreports.io_reports.v1alpha1.yaml")));
    OFFICIAL.put(
        ReportKind.CLUSTER_REPORT,
        schemaOf(TestResources.crd("openreports.io_clusterreports.v1alpha1.yaml")));
    partialSchema = schemaOf(TallyResources.partialReportCrdYaml());
    clusterPartialSchema = schemaOf(TallyResources.clusterPartialReportCrdYaml());
  }

  private static JsonSchema schemaOf(String crdYaml) throws IOException {
    JsonNode crd = new YAMLMapper().readTree(crdYaml);
    JsonNode schema = crd.at("/spec/versions/0/schema/openAPIV3Schema");
    assertThat(schema.isMissingNode()).as("openAPIV3Schema in the CRD").isFalse();
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(schema);
  }

  private static Set<ValidationMessage> validate(JsonSchema schema, Object resource)
      throws IOException {
    return schema.validate(JSON.readTree(Serialization.asJson(resource)));
  }

  @Test
  void everyAggregateTallyWritesValidatesAgainstTheOfficialCrd() {
    qt().withFixedSeed(11L)
        .withExamples(300)
        .forAll(AdapterGen.aggregates())
        .checkAssert(
            report -> {
              try {
                assertThat(validate(OFFICIAL.get(report.ref().kind()), ReportCodec.encode(report)))
                    .as("violations of %s", report.ref())
                    .isEmpty();
              } catch (IOException e) {
                throw new AssertionError(e);
              }
            });
  }

  @Test
  void everyPartialReportValidatesAgainstTheShippedCrd() {
    qt().withFixedSeed(12L)
        .withExamples(300)
        .forAll(AdapterGen.evaluations())
        .checkAssert(
            evaluation -> {
              try {
                var resource = ReportCodec.encodePartial(evaluation, "p");
                JsonSchema schema =
                    evaluation.subject().clusterScoped() ? clusterPartialSchema : partialSchema;
                assertThat(validate(schema, resource)).isEmpty();
              } catch (IOException e) {
                throw new AssertionError(e);
              }
            });
  }

  @Test
  void theValidatorRejectsAnUnknownStatusSoTheChecksAboveCanFail() {
    qt().withFixedSeed(13L)
        .withExamples(20)
        .forAll(AdapterGen.aggregates())
        .checkAssert(
            report -> {
              AggregateResource resource = ReportCodec.encode(report);
              resource
                  .getResults()
                  .add(
                      new WireResult(
                          null, "p", null, "maybe", null, null, null, null, null, null, null,
                          null));
              try {
                assertThat(validate(OFFICIAL.get(report.ref().kind()), resource))
                    .anySatisfy(m -> assertThat(m.getMessage()).contains("result"));
              } catch (IOException e) {
                throw new AssertionError(e);
              }
            });
  }

  @Test
  void shippedCrdsDescribeTheCustomResourceClasses() throws IOException {
    for (String yaml :
        new String[] {
          TallyResources.partialReportCrdYaml(), TallyResources.clusterPartialReportCrdYaml()
        }) {
      var crd = TallyResources.crd(yaml);
      Class<?> type =
          crd.getSpec().getScope().equals("Namespaced")
              ? PartialReportResource.class
              : ClusterPartialReportResource.class;
      assertThat(crd.getSpec().getGroup())
          .isEqualTo(io.fabric8.kubernetes.api.model.HasMetadata.getGroup(type));
      assertThat(crd.getSpec().getNames().getKind())
          .isEqualTo(io.fabric8.kubernetes.api.model.HasMetadata.getKind(type));
      assertThat(crd.getSpec().getNames().getPlural())
          .isEqualTo(io.fabric8.kubernetes.api.model.HasMetadata.getPlural(type));
      assertThat(crd.getSpec().getVersions())
          .extracting(v -> v.getName())
          .containsExactly(io.fabric8.kubernetes.api.model.HasMetadata.getVersion(type));
    }
  }

  @Test
  void rbacShipsBothRoles() throws IOException {
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(TallyResources.RBAC)) {
      assertThat(in).isNotNull();
      String yaml = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(yaml).contains("name: tally-aggregator", "name: tally-producer");
    }
  }
}
