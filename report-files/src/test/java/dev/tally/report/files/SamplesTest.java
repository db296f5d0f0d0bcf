package dev.tally.report.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  /**
   * The report objects of a sample's text as published, in the order {@link ReportFiles#read}
   * returns them: the documents, or the items of a {@code kubectl get -o yaml} List; none when the
   * sample is of another kind.
   */
  private static List<Object> publishedReports(String text) {
    List<Object> out = new ArrayList<>();
    for (Object document : CarriedFields.published(text)) {
      if (OTHER_KINDS.contains(field(document, "kind"))) {
        return List.of(); // refused, see kyvernosIntermediateReportsAreRefusedNamingTheirKind
      }
      if (field(document, "kind").equals("List")) {
        out.addAll((List<?>) ((Map<?, ?>) document).get("items"));
      } else {
        out.add(document);
      }
    }
    return out;
  }

  @Test
  void everySampleFileReadsWithoutLoss() throws Exception {
    List<String> files = sampleFiles();
    assertThat(files).hasSizeGreaterThanOrEqualTo(18);
    int reports = 0;
    for (String file : files) {
      String text = TestResources.sample(file);
      List<Object> published = publishedReports(text);
      if (published.isEmpty()) {
        continue;
      }
      List<ReadReport> read = ReportFiles.read(text, "default");
      assertThat(read).as(file).hasSameSizeAs(published);
      for (int i = 0; i < read.size(); i++) {
        ReadReport r = read.get(i);
        AggregateResource written = ReportFiles.encode(r);
        // the strict codec reads what is in the layout Tally writes; v1alpha1's, the reader
        assertThat(
                WireVersion.of(r.apiVersion()).orElseThrow().legacyResults()
                    ? ReportFiles.read(written).report()
                    : ReportCodec.decode(written))
            .as(file)
            .isEqualTo(r.report());
        assertThat(written.getApiVersion())
            .as(file)
            .isEqualTo(field(published.get(i), "apiVersion"));
        Set<String> warned = warned(r, true);
        CarriedFields.assertCarried(
            file + " document " + (i + 1),
            published.get(i),
            CarriedFields.written(written),
            warned);
        reports++;
      }
    }
    assertThat(reports).isGreaterThanOrEqualTo(17);
  }

  /**
   * Every published sample, written in every version of its group that can hold it (the one it was
   * read in, and each other one it converts to), reads back as the same report, without a warning,
   * and with every published value at the same path in the target's spelling: nothing the target
   * can hold is dropped, and reading dropped nothing (no warning says so). A conversion that is
   * refused names a value the report holds and the target cannot.
   */
  @Test
  void everySampleRoundTripsInEveryVersionThatCanHoldIt() throws Exception {
    int converted = 0;
    int written = 0;
    for (String file : sampleFiles()) {
      String text = TestResources.sample(file);
      List<Object> published = publishedReports(text);
      if (published.isEmpty()) {
        continue;
      }
      List<ReadReport> read = ReportFiles.read(text, "default");
      for (int i = 0; i < read.size(); i++) {
        ReadReport r = read.get(i);
        String what = file + " document " + (i + 1);
        assertThat(r.warnings())
            .as(what + ": no warning says something was dropped")
            .noneMatch(w -> w.message().contains("dropped"));
        WireVersion from = WireVersion.of(r.apiVersion()).orElseThrow();
        for (WireVersion target : WireVersion.values()) {
          if (!target.group().equals(from.group()) || !target.has(r.report().ref().kind())) {
            continue;
          }
          String as = what + " as " + target.apiVersion();
          ReadReport inTarget;
          if (target == from) {
            inTarget = r;
          } else {
            try {
              inTarget = ReportFiles.convert(r, target.apiVersion());
            } catch (InvalidReportException e) {
              assertCannotHold(as, r.report(), target, e);
              continue;
            }
            converted++;
          }
          AggregateResource out = ReportFiles.encode(inTarget);
          assertThat(out.getApiVersion()).as(as).isEqualTo(target.apiVersion());
          List<ReadReport> again = ReportFiles.read(Serialization.asYaml(out), "default");
          assertThat(again).as(as).hasSize(1);
          ReadReport back = again.get(0);
          assertThat(back.apiVersion()).as(as).isEqualTo(target.apiVersion());
          assertThat(back.report()).as(as).isEqualTo(r.report());
          assertThat(back.warnings()).as(as).isEmpty();
          CarriedFields.assertCarried(
              as,
              spelledAs(published.get(i), target),
              CarriedFields.written(out),
              warned(r, false));
          written++;
        }
      }
    }
    assertThat(written).isGreaterThanOrEqualTo(18);
    assertThat(converted).isGreaterThanOrEqualTo(1);
  }

  /**
   * The paths in its object that the warnings of a read report name (without the {@code items[k].}
   * of a List item): what was read otherwise than published. The spelling of a v1alpha1 result's
   * outcome and properties only when {@code renames}; {@link #spelledAs} accounts for it otherwise.
   */
  private static Set<String> warned(ReadReport r, boolean renames) {
    Set<String> out = new HashSet<>();
    for (CodecWarning w : r.warnings()) {
      String field = w.field().replaceFirst("^items\\[\\d+\\]\\.", "");
      if (renames || !field.matches("results\\[\\d+\\]\\.(result|properties)")) {
        out.add(field);
      }
    }
    return out;
  }

  /** A refused conversion names a value of the report that the target has no place for. */
  private static void assertCannotHold(
      String what, AggregateReport report, WireVersion target, InvalidReportException e) {
    assertThat(target).as(what).isEqualTo(WireVersion.WGPOLICY_V1ALPHA1);
    Matcher m = Pattern.compile("results\\[(\\d+)\\]\\.(source|severity)").matcher(e.field());
    assertThat(m.matches()).as(what + ": " + e.getMessage()).isTrue();
    Result result = report.results().get(Integer.parseInt(m.group(1)));
    if (m.group(2).equals("source")) {
      assertThat(result.source()).as(what).isNotEmpty();
    } else {
      assertThat(result.severity())
          .as(what)
          .hasValueSatisfying(s -> assertThat(s).isIn(Severity.CRITICAL, Severity.INFO));
    }
  }

  /**
   * A published object as {@code target} spells it: its apiVersion, and each result's outcome and
   * properties under that version's names ({@code status} and {@code data} in {@code
   * wgpolicyk8s.io/v1alpha1}, {@code result} and {@code properties} otherwise; properties given
   * under both names are one map, {@code properties} winning on a key both have).
   */
  private static Object spelledAs(Object published, WireVersion target) {
    Map<String, Object> out = new LinkedHashMap<>(map(published));
    out.put("apiVersion", target.apiVersion());
    if (out.get("results") instanceof List<?> results) {
      String outcome = target.legacyResults() ? "status" : "result";
      String properties = target.legacyResults() ? "data" : "properties";
      List<Object> spelled = new ArrayList<>();
      for (Object result : results) {
        Map<String, Object> r = new LinkedHashMap<>(map(result));
        Object status = r.containsKey("result") ? r.remove("result") : r.remove("status");
        if (status != null) {
          r.put(outcome, status);
        }
        Map<String, Object> both = new LinkedHashMap<>();
        if (r.remove("data") instanceof Map<?, ?> data) {
          both.putAll(map(data));
        }
        if (r.remove("properties") instanceof Map<?, ?> given) {
          both.putAll(map(given));
        }
        if (!both.isEmpty()) {
          r.put(properties, both);
        }
        spelled.add(r);
      }
      out.put("results", spelled);
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return (Map<String, Object>) o;
  }

  /**
   * kube-bench's adapter published through the {@code wgpolicyk8s.io/v1alpha1} schema of March
   * 2021, and an API server stored what this sample dumps: each of the 122 results keeps its 11
   * properties and its timestamp, and only the spelling of the outcome and of the properties is
   * warned about.
   */
  @Test
  void kubeBenchsV1alpha1ReportKeepsEveryResultsPropertiesAndTimestamp() throws IOException {
    List<ReadReport> read =
        ReportFiles.read(TestResources.sample("wgpolicy-v1alpha1-kube-bench.yaml"), "x");
    assertThat(read).hasSize(1);
    ReadReport r = read.get(0);
    assertThat(r.apiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha1");
    assertThat(r.report().ref())
        .isEqualTo(new ReportRef(ReportKind.POLICY_REPORT, "default", "cis-dummy-policy"));
    assertThat(r.report().summary()).isEqualTo(new Summary(37, 36, 49, 0, 0));
    assertThat(r.report().results())
        .hasSize(122)
        .allSatisfy(
            x -> {
              assertThat(x.properties())
                  .hasSize(11)
                  .containsKeys("index", "audit", "remediation", "test_info", "IsMultiple");
              assertThat(x.timestamp()).hasValue(Timestamp.EPOCH);
            });
    assertThat(r.report().results().get(0).properties()).containsEntry("index", "1.1.1");
    assertThat(r.warnings()).hasSize(2 * 122);
    assertThat(r.warnings())
        .extracting(CodecWarning::field)
        .allMatch(f -> f.matches("items\\[0\\]\\.results\\[\\d+\\]\\.(result|properties)"));
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
