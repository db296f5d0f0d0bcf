package dev.tally.report.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.fabric8.CarriedFields;
import dev.tally.report.fabric8.TestResources;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The published reports in report-fabric8's test resources ({@code samples/}, on the class path
 * from its test-jar) read through {@link ReportFiles} without loss.
 */
class SamplesTest {

  private static List<AggregateReport> read(String file) throws IOException {
    return ReportFiles.readDocuments(TestResources.sample(file), "default");
  }

  @Test
  void cisBenchmarkReportTakesTheReportLevelSource() throws IOException {
    List<AggregateReport> reports = read("openreports-sample-cis-k8s.yaml");
    assertThat(reports).hasSize(1);
    AggregateReport r = reports.get(0);
    assertThat(r.ref().kind()).isEqualTo(ReportKind.REPORT);
    assertThat(r.ref().namespace()).isEqualTo("default");
    assertThat(r.results()).isNotEmpty().allMatch(x -> x.source().equals("kube-bench-adapter"));
    assertThat(r.results().get(0).properties()).containsEntry("index", "1.2.2");
  }

  @Test
  void openreportsPolicyReportKindIsReadAsReport() throws IOException {
    List<AggregateReport> reports = read("openreports-sample-co.yaml");
    assertThat(reports)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.ref().kind()).isEqualTo(ReportKind.REPORT);
              assertThat(r.labels()).containsKey("policy.kubernetes.io/engine");
              assertThat(r.results()).extracting(Result::status).contains(ResultStatus.FAIL);
              assertThat(r.results().get(0).message()).contains("\n");
            });
  }

  @Test
  void falcoSampleHoldsANamespacedAndAClusterReport() throws IOException {
    List<AggregateReport> reports = read("openreports-sample-falco-policy.yaml");
    assertThat(reports)
        .extracting(r -> r.ref().kind())
        .containsExactly(ReportKind.REPORT, ReportKind.CLUSTER_REPORT);
    AggregateReport ns = reports.get(0);
    assertThat(ns.ref().namespace()).isEqualTo("my-namespace");
    assertThat(ns.results().get(0).resources().get(0).name()).isEqualTo("a-pod");
    assertThat(ns.summary()).isEqualTo(new Summary(0, 1, 0, 0, 0));
  }

  @Test
  void kyvernoSampleKeepsItsConfiguration() throws IOException {
    AggregateReport r = read("openreports-sample-v1beta2-kyverno.yaml").get(0);
    assertThat(r.configuration())
        .hasValueSatisfying(
            c -> {
              assertThat(c.maxResults()).isEqualTo(100);
              assertThat(c.statusFilter())
                  .containsExactlyInAnyOrder(
                      ResultStatus.PASS, ResultStatus.FAIL, ResultStatus.SKIP);
            });
    Result result = r.results().get(0);
    assertThat(result.timestamp())
        .hasValueSatisfying(t -> assertThat(t.seconds()).isEqualTo(1679565894L));
    assertThat(result.resources().get(0).uid()).isEqualTo("3407b31a-b0bb-4716-a443-f4aa15662ef2");
  }

  @Test
  void everySampleSurvivesAnEncodeDecodeRoundTrip() throws IOException {
    for (String file :
        List.of(
            "openreports-sample-cis-k8s.yaml",
            "openreports-sample-co.yaml",
            "openreports-sample-falco-policy.yaml",
            "openreports-sample-v1beta2-kyverno.yaml")) {
      for (AggregateReport r : read(file)) {
        AggregateResource encoded = ReportCodec.encode(r);
        var back = Serialization.unmarshal(Serialization.asJson(encoded), encoded.getClass());
        assertThat(ReportCodec.decode(back)).as(file).isEqualTo(r);
      }
    }
  }

  @Test
  void aDocumentOfAnotherKindIsRefusedWithItsIndex() {
    String yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
    assertThatThrownBy(() -> ReportFiles.readDocuments(yaml, "default"))
        .isInstanceOf(ReportReadException.class)
        .hasMessageStartingWith("document 1 (line 2): kind: 'v1 ConfigMap' is not a report kind");
  }

  @Test
  void anUnknownStatusIsRefusedNamingTheField() {
    String yaml =
        "apiVersion: wgpolicyk8s.io/v1alpha2\nkind: PolicyReport\nmetadata:\n  name: x\n"
            + "results:\n- policy: a\n  result: pass\n- policy: b\n  result: maybe\n";
    assertThatThrownBy(() -> ReportFiles.readDocuments(yaml, "default"))
        .isInstanceOf(ReportReadException.class)
        .hasMessage(
            "document 1 (line 9): results[1].result: unknown status 'maybe', expected one of"
                + " pass, fail, warn, error, skip");
  }

  // ---------------------------------------------------------------- every file

  /** A top-level field of a published document, as text. */
  private static String field(Object document, String name) {
    return String.valueOf(((Map<?, ?>) document).get(name));
  }

  /**
   * Every sample file, the ones under kyverno/ too; from the test classes' directory, or from this
   * module's test-jar when another module runs these tests (compat/fabric8-7).
   */
  private static List<String> sampleFiles() throws IOException, URISyntaxException {
    URI samples = SamplesTest.class.getClassLoader().getResource("samples").toURI();
    if (!samples.getScheme().equals("jar")) {
      return sampleFiles(Path.of(samples));
    }
    try (FileSystem jar = FileSystems.newFileSystem(samples, Map.of())) {
      return sampleFiles(jar.getPath("/samples"));
    }
  }

  private static List<String> sampleFiles(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(f -> f.toString().endsWith(".yaml"))
          .map(f -> root.relativize(f).toString().replace('\\', '/'))
          .sorted()
          .toList();
    }
  }

  /** The kinds among the samples that are not reports Tally reads: Kyverno's intermediate ones. */
  private static final Set<String> OTHER_KINDS = Set.of("EphemeralReport", "BackgroundScanReport");

  @Test
  void everySampleFileReadsWithoutLoss() throws Exception {
    List<String> files = sampleFiles();
    assertThat(files).hasSizeGreaterThanOrEqualTo(17);
    int reports = 0;
    for (String file : files) {
      String text = TestResources.sample(file);
      List<Object> published = CarriedFields.published(text);
      if (OTHER_KINDS.contains(field(published.get(0), "kind"))) {
        continue; // refused, see the next test
      }
      List<ReadReport> read = ReportFiles.read(text, "default");
      assertThat(read).as(file).hasSameSizeAs(published);
      for (int i = 0; i < read.size(); i++) {
        ReadReport r = read.get(i);
        AggregateResource written = ReportFiles.encode(r);
        assertThat(ReportCodec.decode(written)).as(file).isEqualTo(r.report());
        assertThat(written.getApiVersion())
            .as(file)
            .isEqualTo(field(published.get(i), "apiVersion"));
        Set<String> warned = new HashSet<>();
        r.warnings().forEach(w -> warned.add(w.field()));
        CarriedFields.assertCarried(
            file + " document " + (i + 1),
            published.get(i),
            CarriedFields.written(written),
            warned);
        reports++;
      }
    }
    assertThat(reports).isGreaterThanOrEqualTo(16);
  }

  @Test
  void kyvernosIntermediateReportsAreRefusedNamingTheirKind() {
    assertThatThrownBy(() -> read("kyverno/ephr-background-pod-fail.go-fixture.yaml"))
        .isInstanceOf(ReportReadException.class)
        .hasMessageStartingWith(
            "document 1 (line 8): kind: 'reports.kyverno.io/v1 EphemeralReport' is not a report"
                + " kind Tally reads; it reads PolicyReport and ClusterPolicyReport of"
                + " wgpolicyk8s.io");
    assertThatThrownBy(() -> read("kyverno-background-scan-report-pss.yaml"))
        .isInstanceOf(ReportReadException.class)
        .hasMessageStartingWith(
            "document 1 (line 2): kind: 'kyverno.io/v1alpha2 BackgroundScanReport' is not a"
                + " report kind Tally reads");
  }

  @Test
  void kyvernoConformanceFixturesWithoutANameReadWithAWarning() throws IOException {
    ReadReport r =
        ReportFiles.read(TestResources.sample("kyverno/polr-deployment-latest-tag-fail.yaml"), "ns")
            .get(0);
    assertThat(r.report().ref())
        .isEqualTo(new ReportRef(ReportKind.POLICY_REPORT, "ns", "unnamed-1"));
    assertThat(r.warnings()).extracting(CodecWarning::field).containsExactly("metadata.name");
    assertThat(r.report().owner())
        .hasValue(Subject.of("apps/v1", "Deployment", "ns", "test-dpl-1", ""));
    assertThat(r.report().results())
        .singleElement()
        .satisfies(x -> assertThat(x.rule()).isEqualTo("autogen-validate-image-tag-pod"));
  }

  @Test
  void kyvernoDocsDumpKeepsItsMetadataAndItsPublishedSummary() throws IOException {
    ReadReport r =
        ReportFiles.read(TestResources.sample("kyverno/polr-pod-kube-apiserver.docs.yaml"), "x")
            .get(0);
    assertThat(r.warnings()).isEmpty();
    assertThat(r.apiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha2");
    // the page elided 10 of 12 results; the summary is what was published, not a recount
    assertThat(r.report().summary()).isEqualTo(new Summary(10, 2, 0, 0, 0));
    AggregateResource written = ReportFiles.encode(r);
    assertThat(written.getMetadata().getUid()).isEqualTo("0ec04a57-4c3d-492d-9278-951cd1929fe3");
    assertThat(written.getMetadata().getResourceVersion()).isEqualTo("720507");
    assertThat(written.getMetadata().getCreationTimestamp()).isEqualTo("2023-12-06T13:19:03Z");
    assertThat(written.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getController()).isNull());
  }
}
