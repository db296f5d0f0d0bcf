package dev.tally.report.kyverno;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.TestResources;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.merge.kyverno.IntermediateReport;
import dev.tally.report.merge.kyverno.KyvernoMapping;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kyverno's published objects (test resources {@code samples/kyverno}, provenance in its README):
 * the intermediate report becomes the partial report it states, and every per-resource policy
 * report's results and summary are what Tally aggregates from an intermediate report holding the
 * same results.
 */
class KyvernoSamplesTest {

  @Test
  void kyvernosIntermediateReportFixtureIsTheExpectedPartial() {
    GenericKubernetesResource object =
        Serialization.unmarshal(
            TestResources.sample("kyverno/ephr-background-pod-fail.go-fixture.yaml"),
            GenericKubernetesResource.class);

    IntermediateReport read = KyvernoCodec.read(object);
    var outcome = KyvernoMapping.map(read);

    assertThat(outcome).isInstanceOf(KyvernoMapping.Outcome.Ready.class);
    PartialReport partial = ((KyvernoMapping.Outcome.Ready) outcome).partial();
    assertThat(partial.producer()).isEqualTo("kyverno/background-scan");
    assertThat(partial.subject())
        .isEqualTo(Subject.of("v1", "Pod", "default", "test-pod", "pod-id-12345"));
    // the label pol.kyverno.io/require-app-label names the namespaced Policy the result names
    assertThat(partial.coverage())
        .containsExactly(CoverageKey.of("kyverno", "default/require-app-label"));
    assertThat(partial.results())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.status()).isEqualTo(ResultStatus.FAIL);
              assertThat(r.rule()).isEqualTo("check-app-label");
              assertThat(r.message()).isEqualTo("validation error: Pods must have a 'app' label");
              assertThat(r.properties()).containsEntry("process", "background scan");
            });
  }

  /**
   * A published PolicyReport fixture, decoded strictly: the fixtures are in the model's range but
   * may leave out the name and the namespace (report-files reads them so, with a warning).
   */
  @SuppressWarnings("unchecked")
  private static AggregateReport publishedReport(String file) {
    Map<String, Object> tree =
        Serialization.unmarshal(TestResources.sample("kyverno/" + file), Map.class);
    Map<String, Object> meta =
        (Map<String, Object>) tree.computeIfAbsent("metadata", k -> new HashMap<String, Object>());
    meta.putIfAbsent("name", "unnamed-1");
    meta.putIfAbsent("namespace", "default");
    return ReportCodec.decode(
        Serialization.unmarshal(Serialization.asJson(tree), PolicyReportResource.class));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "polr-configmap-mpol-pass.yaml",
        "polr-deployment-latest-tag-fail.yaml",
        "polr-deployment-latest-tag-pass.yaml",
        "polr-deployment-unscored-warn.yaml",
        "polr-deployment-vap-fail.docs.yaml",
        "polr-deployment-vap-pass.docs.yaml",
        "polr-deployment-vpol-admission-pass.yaml",
        "polr-pod-kube-apiserver.docs.yaml",
        "polr-pod-pss-baseline-fail.yaml",
        "polr-pod-pss-baseline-skip.yaml",
        "polr-pod-pss-restricted-background-fail.yaml"
      })
  void tallyReproducesEachPolicyReportFromAnIntermediateReportWithItsResults(String file) {
    AggregateReport published = publishedReport(file);
    String namespace = published.ref().namespace();
    Subject subject =
        published
            .scope()
            // chainsaw fixtures leave out what their test does not check: the scope's namespace,
            // uid
            .map(
                s ->
                    Subject.of(
                        s.apiVersion(),
                        s.kind(),
                        namespace,
                        s.name(),
                        s.uid().isEmpty() ? "uid-of-" + s.name() : s.uid()))
            .orElse(Subject.of("v1", "Pod", namespace, "the-resource", "uid-of-the-resource"));

    Map<String, String> labels = new HashMap<>();
    labels.put("app.kubernetes.io/managed-by", "kyverno");
    labels.put(KyvernoMapping.SOURCE_LABEL, "background-scan");
    String apiVersion = subject.apiVersion();
    int slash = apiVersion.indexOf('/');
    labels.put(KyvernoMapping.GROUP_LABEL, slash < 0 ? "" : apiVersion.substring(0, slash));
    labels.put(KyvernoMapping.VERSION_LABEL, apiVersion.substring(slash + 1));
    labels.put(KyvernoMapping.KIND_LABEL, subject.kind());
    labels.put(KyvernoMapping.UID_LABEL, subject.uid());
    List<Result> results = new ArrayList<>();
    for (Result r : published.results()) {
      results.add(r.toBuilder().resources(List.of()).build()); // Kyverno's results name none
    }
    var intermediate =
        new IntermediateReport(
            namespace,
            subject.uid() + "-scan",
            labels,
            Map.of(
                KyvernoMapping.NAMESPACE_ANNOTATION,
                namespace,
                KyvernoMapping.NAME_ANNOTATION,
                subject.name()),
            Optional.of(subject.uid()),
            Optional.of(Timestamp.ofSeconds(1_700_000_000)),
            results);

    ReportAggregator tally = ReportAggregator.builder().grouping(Grouping.perSubject()).build();
    tally.apply(((KyvernoMapping.Outcome.Ready) KyvernoMapping.map(intermediate)).partial());
    tally.flush();

    assertThat(tally.aggregates()).singleElement();
    AggregateReport aggregated = tally.aggregates().get(0);
    assertThat(aggregated.scope()).contains(subject);
    assertThat(sorted(withoutResources(aggregated.results()))).as(file).isEqualTo(sorted(results));
    // the summary is the recount; the documentation page elided 10 of 12 results of one sample
    assertThat(aggregated.summary()).isEqualTo(Summary.of(published.results()));
    if (!file.equals("polr-pod-kube-apiserver.docs.yaml")) {
      assertThat(aggregated.summary()).as(file).isEqualTo(published.summary());
    }
  }

  @Test
  void theFixtureDecodedStraightIntoTheTypedReportAsTheInformersDoReadsTheSame() {
    String yaml = TestResources.sample("kyverno/ephr-background-pod-fail.go-fixture.yaml");
    EphemeralReportResource typed = Serialization.unmarshal(yaml, EphemeralReportResource.class);
    GenericKubernetesResource generic =
        Serialization.unmarshal(yaml, GenericKubernetesResource.class);

    assertThat(typed.getSpec().results()).hasSize(1);
    assertThat(KyvernoCodec.read(typed)).isEqualTo(KyvernoCodec.read(generic));
    assertThat(KyvernoCodec.typed(typed)).isSameAs(typed);
  }

  @Test
  void aTypedReportInTheWrongScopeIsRefusedNamingTheNamespace() {
    String yaml = TestResources.sample("kyverno/ephr-background-pod-fail.go-fixture.yaml");
    ClusterEphemeralReportResource cluster =
        Serialization.unmarshal(yaml, ClusterEphemeralReportResource.class);
    assertThatThrownBy(() -> KyvernoCodec.read(cluster))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("metadata.namespace")
        .hasMessageContaining("has no namespace");
  }

  @Test
  void anObjectOfAnotherKindIsRefusedNamingTheKind() {
    GenericKubernetesResource polr =
        Serialization.unmarshal(
            TestResources.sample("kyverno/polr-deployment-latest-tag-fail.yaml"),
            GenericKubernetesResource.class);
    assertThatThrownBy(() -> KyvernoCodec.read(polr))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("kind")
        .hasMessageContaining("PolicyReport");
  }

  private static List<Result> withoutResources(List<Result> results) {
    return results.stream().map(r -> r.toBuilder().resources(List.of()).build()).toList();
  }

  private static List<Result> sorted(List<Result> results) {
    return results.stream().sorted(Comparator.comparing(Result::toString)).toList();
  }
}
