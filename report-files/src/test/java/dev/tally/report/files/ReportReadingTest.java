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
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.CarriedFields;
import dev.tally.report.fabric8.TestResources;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.resource.WireResult;
import dev.tally.report.fabric8.resource.WireTimestamp;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Reading what other tools publish: kubectl dumps and multi-document files, older API versions,
 * values the CRDs accept but the model cannot hold, fields the model has no place for, and errors
 * that say where.
 */
class ReportReadingTest {

  private static final String POLR =
      """
      apiVersion: wgpolicyk8s.io/v1alpha2
      kind: PolicyReport
      metadata:
        name: polr-a
        namespace: shop
      results:
      - policy: require-labels
        result: fail
        source: kyverno
      """;

  /** The first result of what fabric8 writes of an object, as a map. */
  private static Map<String, ?> firstResult(Object resource) {
    return (Map<String, ?>) ((List<?>) CarriedFields.written(resource).get("results")).get(0);
  }

  // ---------------------------------------------------------------- documents

  @Test
  void aKubectlListDumpReadsEveryItem() {
    String dump =
        """
        apiVersion: v1
        kind: List
        metadata:
          resourceVersion: ""
        items:
        - apiVersion: wgpolicyk8s.io/v1alpha2
          kind: PolicyReport
          metadata:
            name: polr-a
            namespace: shop
          results:
          - policy: require-labels
            result: fail
        - apiVersion: wgpolicyk8s.io/v1alpha2
          kind: ClusterPolicyReport
          metadata:
            name: cpolr-b
          results:
          - policy: restrict-nodes
            result: pass
        """;
    List<ReadReport> read = ReportFiles.read(dump, "default");
    assertThat(read)
        .extracting(r -> r.report().ref())
        .containsExactly(
            new ReportRef(ReportKind.POLICY_REPORT, "shop", "polr-a"),
            new ReportRef(ReportKind.CLUSTER_POLICY_REPORT, "", "cpolr-b"));
    assertThat(read.get(1).report().results())
        .singleElement()
        .satisfies(r -> assertThat(r.status()).isEqualTo(ResultStatus.PASS));
    assertThat(read).allSatisfy(r -> assertThat(r.warnings()).isEmpty());
  }

  @Test
  void theSameDumpAsJsonReadsToo() {
    String dump =
        """
        {
          "apiVersion": "v1",
          "kind": "List",
          "items": [
            {"apiVersion": "wgpolicyk8s.io/v1alpha2", "kind": "PolicyReport",
             "metadata": {"name": "polr-a", "namespace": "shop"},
             "results": [{"policy": "require-labels", "result": "fail"}]},
            {"apiVersion": "wgpolicyk8s.io/v1alpha2", "kind": "PolicyReport",
             "metadata": {"name": "polr-b", "namespace": "shop"},
             "results": [{"policy": "require-labels", "result": "maybe"}]}
          ]
        }
        """;
    assertThatThrownBy(() -> ReportFiles.read(dump, "default"))
        .isInstanceOf(ReportReadException.class)
        .hasMessage(
            "document 1 (line 10): items[1].results[0].result: unknown status 'maybe', expected"
                + " one of pass, fail, warn, error, skip");
    assertThat(ReportFiles.read(dump.replace("maybe", "skip"), "default")).hasSize(2);
  }

  @Test
  void aTypedListLendsItsKindToItemsThatOmitIt() {
    String list =
        """
        apiVersion: wgpolicyk8s.io/v1alpha2
        kind: PolicyReportList
        items:
        - metadata:
            name: polr-a
          results:
          - policy: require-labels
            result: warn
        """;
    assertThat(ReportFiles.readDocuments(list, "shop"))
        .extracting(AggregateReport::ref)
        .containsExactly(new ReportRef(ReportKind.POLICY_REPORT, "shop", "polr-a"));
  }

  @Test
  void separatorsMayCarryComments() {
    String text =
        "--- # first report\n"
            + POLR
            + "--- # second report\n"
            + POLR.replace("polr-a", "polr-b")
            + "---\n# nothing here but a comment\n---   \n"
            + POLR.replace("polr-a", "polr-c");
    assertThat(ReportFiles.readDocuments(text, "default"))
        .extracting(r -> r.ref().name())
        .containsExactly("polr-a", "polr-b", "polr-c");
  }

  @Test
  void aDumpLargerThanSnakeYamlsDefaultLimitReads() {
    StringBuilder dump = new StringBuilder("apiVersion: v1\nkind: List\nitems:\n");
    String message = "m".repeat(1000);
    int items = 0;
    while (dump.length() < 4 * 1024 * 1024) {
      dump.append(
          """
          - apiVersion: wgpolicyk8s.io/v1alpha2
            kind: PolicyReport
            metadata: {name: polr-%d, namespace: shop}
            results:
            - {policy: p, result: pass, message: %s}
          """
              .formatted(items++, message));
    }
    assertThat(ReportFiles.readDocuments(dump.toString(), "default")).hasSize(items);
  }

  // ---------------------------------------------------------------- versions

  private static final String V1ALPHA1 =
      """
      apiVersion: wgpolicyk8s.io/v1alpha1
      kind: PolicyReport
      metadata:
        name: polr-old
        namespace: shop
      results:
      - policy: require-labels
        rule: check-team
        status: fail
        severity: high
        scored: true
        data:
          team: missing
      summary:
        fail: 1
      """;

  @Test
  void aV1alpha1ReportSaysItsVersionAndIsWrittenBackInIt() {
    ReadReport read = ReportFiles.read(V1ALPHA1, "default").get(0);
    assertThat(read.apiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha1");
    assertThat(read.warnings()).isEmpty();
    Result result = read.report().results().get(0);
    assertThat(result.status()).isEqualTo(ResultStatus.FAIL);
    assertThat(result.severity()).hasValue(Severity.HIGH);
    assertThat(result.properties()).containsExactly(Map.entry("team", "missing"));

    AggregateResource written = ReportFiles.encode(read);
    assertThat(written.getApiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha1");
    Map<String, ?> wire = firstResult(written);
    assertThat(wire.keySet())
        .containsExactlyInAnyOrder("policy", "rule", "status", "severity", "scored", "data");
    assertThat(wire.get("status")).isEqualTo("fail");
    assertThat(((Map<?, ?>) wire.get("data")).get("team")).isEqualTo("missing");
    // and read again, it is the same report in the same version
    ReadReport again = ReportFiles.read(Serialization.asYaml(written), "default").get(0);
    assertThat(again.apiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha1");
    assertThat(again.report()).isEqualTo(read.report());
  }

  /**
   * Tools published {@code wgpolicyk8s.io/v1alpha1} results with the outcome under {@code result}
   * (the name the v1alpha1 types had between February and April 2021, and v1alpha2's); the final
   * v1alpha1 schema says {@code status}. Either spelling reads, from text and from an object, and
   * the report is written back in the final spelling, with a warning saying so.
   */
  @Test
  void aV1alpha1ResultSpelledResultReadsAsItsStatus() {
    String spelledResult = V1ALPHA1.replace("status: fail", "result: fail");
    ReadReport read = ReportFiles.read(spelledResult, "default").get(0);
    assertThat(read.report()).isEqualTo(ReportFiles.read(V1ALPHA1, "default").get(0).report());
    assertThat(read.warnings())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.field()).isEqualTo("results[0].result");
              assertThat(w.message()).contains("written back as 'status'");
            });
    assertThat(firstResult(ReportFiles.encode(read)).get("status")).isEqualTo("fail");

    // the same object as fabric8 binds it (listed from a cluster whose schema kept the field)
    AggregateResource bound = boundV1alpha1(checkTeamFails(null, null, Map.of("team", "missing")));
    ReadReport fromObject = ReportFiles.read(bound);
    assertThat(fromObject.report()).isEqualTo(read.report());
    assertThat(fromObject.warnings()).extracting(CodecWarning::field).contains("results[0].result");
  }

  /**
   * In the v1alpha1 types of February 2021 {@code result} is the outcome and {@code status} the
   * policy's implementation readiness ({@code completed}, {@code partial}, {@code planned}), which
   * Tally does not model: dropped with a warning naming it.
   */
  @Test
  void aV1alpha1StatusBesideResultIsTheReadinessAndIsDroppedWithAWarning() {
    String both = V1ALPHA1.replace("status: fail", "result: fail\n  status: planned");
    ReadReport read = ReportFiles.read(both, "default").get(0);
    assertThat(read.report().results().get(0).status()).isEqualTo(ResultStatus.FAIL);
    assertThat(read.warnings())
        .anySatisfy(
            w -> {
              assertThat(w.field()).isEqualTo("results[0].status");
              assertThat(w.message()).contains("'planned'").contains("readiness");
            });
  }

  /**
   * The v1alpha1 schema of March 2021, which kube-bench's adapter published through: the outcome is
   * {@code result}, the properties {@code properties}, and each result has a {@code timestamp}.
   */
  private static final String V1ALPHA1_MARCH_2021 =
      """
      apiVersion: wgpolicyk8s.io/v1alpha1
      kind: PolicyReport
      metadata:
        name: cis
        namespace: default
      results:
      - policy: Master Node Security Configuration
        rule: Master Node Configuration Files
        result: fail
        scored: true
        properties:
          index: 1.1.1
          type: ""
        timestamp:
          nanos: 5
          seconds: 1617882297
      """;

  /**
   * What the v1alpha1 schema of March 2021 holds is kept: the properties and the timestamp are the
   * model's, and are written back (the properties under the final schema's name, with a warning
   * saying so); nothing is dropped.
   */
  @Test
  void aV1alpha1ResultOfMarch2021KeepsItsPropertiesAndTimestamp() {
    ReadReport read = ReportFiles.read(V1ALPHA1_MARCH_2021, "default").get(0);
    Result result = read.report().results().get(0);
    assertThat(result.status()).isEqualTo(ResultStatus.FAIL);
    assertThat(result.properties()).isEqualTo(Map.of("index", "1.1.1", "type", ""));
    assertThat(result.timestamp()).hasValue(new Timestamp(1_617_882_297L, 5));
    assertThat(read.warnings())
        .extracting(CodecWarning::field)
        .containsExactly("results[0].result", "results[0].properties");
    assertThat(read.warnings()).noneMatch(w -> w.message().contains("dropped"));
    assertThat(read.warnings().get(1).message()).contains("written back as 'data'");

    AggregateResource written = ReportFiles.encode(read);
    assertThat(written.getApiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha1");
    Map<String, ?> wire = firstResult(written);
    assertThat(wire.keySet())
        .containsExactlyInAnyOrder("policy", "rule", "status", "scored", "data", "timestamp");
    assertThat(wire.get("data")).isEqualTo(Map.of("index", "1.1.1", "type", ""));
    assertThat(wire.get("timestamp")).isEqualTo(Map.of("seconds", 1_617_882_297, "nanos", 5));
    ReadReport again = ReportFiles.read(Serialization.asYaml(written), "default").get(0);
    assertThat(again.report()).isEqualTo(read.report());
    assertThat(again.warnings()).isEmpty();

    // converted, the same values under v1alpha2's names
    Map<String, ?> v1alpha2 =
        firstResult(ReportFiles.encode(ReportFiles.convert(read, "wgpolicyk8s.io/v1alpha2")));
    assertThat(v1alpha2.get("result")).isEqualTo("fail");
    assertThat(v1alpha2.get("properties")).isEqualTo(Map.of("index", "1.1.1", "type", ""));
    assertThat(v1alpha2.get("timestamp")).isEqualTo(wire.get("timestamp"));
  }

  /** The same object as fabric8 binds it, listed from a cluster that served that schema. */
  @Test
  void aV1alpha1ObjectOfMarch2021KeepsItsPropertiesAndTimestamp() {
    AggregateResource bound =
        boundV1alpha1(
            checkTeamFails(Map.of("team", "missing"), new WireTimestamp(1_617_882_297L, 0), null));
    ReadReport read = ReportFiles.read(bound);
    Result result = read.report().results().get(0);
    assertThat(result.properties()).isEqualTo(Map.of("team", "missing"));
    assertThat(result.timestamp()).hasValue(new Timestamp(1_617_882_297L, 0));
    assertThat(read.warnings())
        .extracting(CodecWarning::field)
        .containsExactly("results[0].result", "results[0].properties");
    assertThat(
            ReportFiles.read(Serialization.asYaml(ReportFiles.encode(read)), "x").get(0).report())
        .isEqualTo(read.report());
  }

  /**
   * No v1alpha1 schema has both {@code properties} and {@code data}, but a hand-written file may:
   * the properties are those of both, and on a key both have with different values {@code
   * properties} wins, with a warning naming the value of {@code data} that was dropped.
   */
  @Test
  void aV1alpha1ResultWithPropertiesAndDataReadsBothAndPropertiesWin() {
    String both =
        V1ALPHA1.replace(
            "  data:\n    team: missing\n",
            "  data:\n    team: missing\n    owner: ops\n    tier: web\n"
                + "  properties:\n    team: present\n    tier: web\n    zone: a\n");
    ReadReport read = ReportFiles.read(both, "default").get(0);
    assertThat(read.report().results().get(0).properties())
        .isEqualTo(Map.of("team", "present", "owner", "ops", "tier", "web", "zone", "a"));
    assertThat(read.warnings())
        .extracting(CodecWarning::field)
        .containsExactly("results[0].properties", "results[0].data[team]");
    assertThat(read.warnings().get(1).message()).contains("dropped").contains("'properties' wins");
    // and the same from an object
    AggregateResource bound =
        boundV1alpha1(
            new WireResult(
                null,
                "require-labels",
                null,
                null,
                null,
                null,
                null,
                null,
                Map.of("team", "present"),
                null,
                null,
                null,
                "fail",
                Map.of("team", "missing", "owner", "ops")));
    ReadReport fromObject = ReportFiles.read(bound);
    assertThat(fromObject.report().results().get(0).properties())
        .isEqualTo(Map.of("team", "present", "owner", "ops"));
    assertThat(fromObject.warnings())
        .extracting(CodecWarning::field)
        .containsExactly("results[0].properties", "results[0].data[team]");
  }

  /** Errors in a v1alpha1 result name the field as the result spelled it. */
  @Test
  void aBadV1alpha1ResultIsRefusedNamingTheFieldAsSpelled() {
    assertThatThrownBy(
            () ->
                ReportFiles.read(
                    V1ALPHA1_MARCH_2021.replace("result: fail", "result: maybe"), "default"))
        .isInstanceOf(ReportReadException.class)
        .hasMessage(
            "document 1 (line 9): results[0].result: unknown status 'maybe', expected one of"
                + " pass, fail, warn, error, skip");
    assertThatThrownBy(
            () -> ReportFiles.read(V1ALPHA1.replace("status: fail", "status: maybe"), "default"))
        .hasMessageStartingWith("document 1 (line 9): results[0].status: unknown status 'maybe'");
    assertThatThrownBy(
            () ->
                ReportFiles.read(
                    V1ALPHA1_MARCH_2021.replace("index: 1.1.1", "index: null"), "default"))
        .hasMessageEndingWith(": results[0].properties[index]: is null");
    assertThatThrownBy(
            () -> ReportFiles.read(V1ALPHA1.replace("team: missing", "team: null"), "default"))
        .hasMessageEndingWith(": results[0].data[team]: is null");
    assertThatThrownBy(
            () ->
                ReportFiles.read(
                    V1ALPHA1_MARCH_2021.replace("    nanos: 5\n", "    nanos: x\n"), "default"))
        .hasMessageEndingWith(
            ": results[0].timestamp.nanos: is 'x', expected an integer in [-2147483648,"
                + " 2147483647]");
    assertThatThrownBy(
            () ->
                ReportFiles.read(
                    V1ALPHA1_MARCH_2021.replace("    type: \"\"\n", "    type: [a]\n"), "default"))
        .hasMessageEndingWith(": results[0].properties.type: is a list, expected a string");
  }

  @Test
  void onlyConvertChangesTheVersion() {
    ReadReport read = ReportFiles.read(V1ALPHA1, "default").get(0);
    ReadReport converted = ReportFiles.convert(read, "wgpolicyk8s.io/v1alpha2");
    assertThat(converted.report()).isEqualTo(read.report());
    assertThat(converted.apiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha2");
    AggregateResource written = ReportFiles.encode(converted);
    assertThat(written.getApiVersion()).isEqualTo("wgpolicyk8s.io/v1alpha2");
    Map<String, ?> wire = firstResult(written);
    assertThat(wire.get("result")).isEqualTo("fail");
    assertThat(((Map<?, ?>) wire.get("properties")).get("team")).isEqualTo("missing");
    assertThat(wire.containsKey("status")).isFalse();
    assertThat(wire.containsKey("data")).isFalse();
    // the plain encoding of the model is the version Tally writes
    assertThat(ReportCodec.encode(read.report()).getApiVersion())
        .isEqualTo("wgpolicyk8s.io/v1alpha2");
  }

  @Test
  void convertingToV1alpha1RefusesWhatItCannotHold() {
    ReadReport read = ReportFiles.read(POLR, "default").get(0);
    assertThatThrownBy(() -> ReportFiles.convert(read, "wgpolicyk8s.io/v1alpha1"))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage(
            "results[0].source: 'kyverno' cannot be written: wgpolicyk8s.io/v1alpha1 has no source");
    ReadReport critical =
        ReportFiles.read(POLR.replace("source: kyverno", "severity: critical"), "default").get(0);
    assertThatThrownBy(() -> ReportFiles.convert(critical, "wgpolicyk8s.io/v1alpha1"))
        .hasMessage(
            "results[0].severity: 'critical' is not a severity of wgpolicyk8s.io/v1alpha1 (high,"
                + " medium, low)");
    assertThatThrownBy(() -> ReportFiles.convert(read, "openreports.io/v1alpha1"))
        .hasMessage("apiVersion: 'openreports.io/v1alpha1' has no kind PolicyReport");
    assertThatThrownBy(() -> ReportFiles.convert(read, "wgpolicyk8s.io/v9"))
        .hasMessageStartingWith("apiVersion: 'wgpolicyk8s.io/v9' is not a version Tally writes");
  }

  @Test
  void aV1alpha1ReportGivenASourceCannotBeWrittenAsV1alpha1() {
    ReadReport read = ReportFiles.read(V1ALPHA1, "default").get(0);
    AggregateReport r = read.report();
    Result withSource = r.results().get(0).toBuilder().source("kyverno").build();
    ReadReport changed =
        read.withReport(
            new AggregateReport(
                r.ref(),
                r.labels(),
                r.scope(),
                r.owner(),
                r.configuration(),
                List.of(withSource),
                r.summary(),
                r.contentHash()));
    assertThatThrownBy(() -> ReportFiles.encode(changed))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage(
            "results[0].source: 'kyverno' cannot be written: wgpolicyk8s.io/v1alpha1 has no"
                + " source");
    assertThat(
            ReportFiles.encode(ReportFiles.convert(read, "wgpolicyk8s.io/v1alpha2"))
                .getApiVersion())
        .isEqualTo("wgpolicyk8s.io/v1alpha2");
  }

  @Test
  void aVersionTallyDoesNotKnowIsRefusedNamingIt() {
    assertThatThrownBy(() -> ReportFiles.read(POLR.replace("v1alpha2", "v1beta1"), "default"))
        .isInstanceOf(ReportReadException.class)
        .hasMessage(
            "document 1 (line 1): apiVersion: 'wgpolicyk8s.io/v1beta1' is not a version of"
                + " PolicyReport that Tally reads; it reads wgpolicyk8s.io v1alpha1, v1alpha2");
  }

  @Test
  void anOpenreportsReportSaysItsVersion() {
    ReadReport read =
        ReportFiles.read(TestResources.sample("openreports-sample-cis-k8s.yaml"), "default").get(0);
    assertThat(read.apiVersion()).isEqualTo("openreports.io/v1alpha1");
    assertThat(ReportFiles.encode(read).getApiVersion()).isEqualTo("openreports.io/v1alpha1");
  }

  // ---------------------------------------------------------------- normalisations

  private static String withTimestamp(long seconds, long nanos) {
    return POLR + "  timestamp:\n    seconds: " + seconds + "\n    nanos: " + nanos + "\n";
  }

  @Test
  void nanosOfASecondOrMoreAreCarriedIntoSecondsWithAWarning() {
    ReadReport read = ReportFiles.read(withTimestamp(1_700_000_000L, 1_500_000_000L), "x").get(0);
    assertThat(read.report().results().get(0).timestamp())
        .hasValue(new Timestamp(1_700_000_001L, 500_000_000));
    assertThat(read.warnings())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.field()).isEqualTo("results[0].timestamp.nanos");
              assertThat(w.message())
                  .isEqualTo(
                      "1500000000 is outside [0, 999999999]; read as the same instant, seconds"
                          + " 1700000001 and nanos 500000000 (whole seconds carried)");
            });
  }

  @Test
  void negativeNanosBorrowFromTheSeconds() {
    ReadReport read = ReportFiles.read(withTimestamp(10, -1), "x").get(0);
    assertThat(read.report().results().get(0).timestamp()).hasValue(new Timestamp(9, 999_999_999));
    assertThat(read.warnings())
        .extracting(CodecWarning::field)
        .containsExactly("results[0].timestamp.nanos");
  }

  @Test
  void secondsOutsideTheModelsRangeAreClampedWithAWarning() {
    ReadReport before = ReportFiles.read(withTimestamp(0, -1), "x").get(0);
    assertThat(before.report().results().get(0).timestamp()).hasValue(Timestamp.EPOCH);
    assertThat(before.warnings())
        .extracting(CodecWarning::field)
        .containsExactly("results[0].timestamp.nanos", "results[0].timestamp.seconds");
    ReadReport after = ReportFiles.read(withTimestamp(Long.MAX_VALUE, 0), "x").get(0);
    assertThat(after.report().results().get(0).timestamp())
        .hasValue(new Timestamp(Timestamp.MAX_SECONDS, 999_999_999));
    assertThat(after.warnings())
        .extracting(CodecWarning::toString)
        .containsExactly(
            "results[0].timestamp.seconds: 9223372036854775807 is after 9999-12-31T23:59:59Z;"
                + " read as seconds 253402300799 and nanos 999999999");
  }

  @Test
  void aNegativeSummaryCountAndAMaxResultsBelowOneReadWithWarnings() {
    String report =
        """
        apiVersion: openreports.io/v1alpha1
        kind: Report
        metadata: {name: r, namespace: shop}
        configuration: {limits: {maxResults: 0}}
        summary: {pass: -3}
        """;
    ReadReport read = ReportFiles.read(report, "x").get(0);
    assertThat(read.report().summary()).isEqualTo(Summary.EMPTY);
    assertThat(read.report().configuration())
        .hasValueSatisfying(c -> assertThat(c.maxResults()).isEqualTo(Integer.MAX_VALUE));
    assertThat(read.warnings())
        .extracting(CodecWarning::field)
        .containsExactly("configuration.limits.maxResults", "summary.pass");
    // written back as published: the configuration is what was read
    Map<?, ?> configuration =
        (Map<?, ?>) CarriedFields.written(ReportFiles.encode(read)).get("configuration");
    assertThat(((Map<?, ?>) configuration.get("limits")).get("maxResults")).isEqualTo(0);
  }

  @Test
  void objectsTallyWroteAreStillDecodedStrictly() {
    AggregateResource res =
        ReportCodec.encode(ReportFiles.read(withTimestamp(1, 5), "x").get(0).report());
    res.getResults()
        .set(
            0,
            new WireResult(
                "kyverno",
                "require-labels",
                null,
                "fail",
                null,
                null,
                null,
                null,
                null,
                new WireTimestamp(1, 1_500_000_000),
                null,
                null));
    assertThatThrownBy(() -> ReportCodec.decode(res))
        .isInstanceOf(InvalidReportException.class)
        .hasMessage("results[0].timestamp.nanos: must be in [0, 999999999], was 1500000000");
    ReadReport lenient = ReportFiles.read(res);
    assertThat(lenient.warnings())
        .extracting(CodecWarning::field)
        .containsExactly("results[0].timestamp.nanos");
    assertThat(lenient.report().results().get(0).timestamp())
        .hasValue(new Timestamp(2, 500_000_000));
  }

  // ---------------------------------------------------------------- fields the model has no place
  // for

  private static final String DUMP =
      """
      apiVersion: openreports.io/v1alpha1
      kind: Report
      metadata:
        name: sample
        namespace: shop
        uid: 7d9f1d8e-1111-2222-3333-444455556666
        resourceVersion: "4711"
        creationTimestamp: "2024-01-25T11:55:33Z"
        generation: 3
        labels:
          app.kubernetes.io/managed-by: scanner
        annotations:
          name: CIS Kubernetes Benchmarks
          tally.dev/content-hash: sha256-1
        ownerReferences:
        - apiVersion: apps/v1
          kind: Deployment
          name: web
          uid: 0b2d730e-cbc3-4eab-8f3b-ad106ea5d559
          blockOwnerDeletion: true
        - apiVersion: v1
          kind: ConfigMap
          name: settings
          uid: 9e0c
      source: kube-bench-adapter
      scope:
        apiVersion: apps/v1
        kind: Deployment
        name: web
        namespace: shop
        resourceVersion: "99"
      scopeSelector:
        matchLabels:
          app: web
      configuration:
        limits:
          statusFilter: [fail]
      results:
      - policy: api-server:anonymous-auth
        result: fail
        resources:
        - apiVersion: v1
          kind: Pod
          name: web-0
          namespace: shop
          fieldPath: spec.containers[0]
      - policy: api-server:basic-auth-file
        result: pass
        source: other-tool
      """;

  @Test
  void sourceAnnotationsAndOtherFieldsSurviveARoundTrip() {
    ReadReport read = ReportFiles.read(DUMP, "default").get(0);
    assertThat(read.warnings()).isEmpty();
    assertThat(read.source()).hasValue("kube-bench-adapter");
    assertThat(read.annotations())
        .containsEntry("name", "CIS Kubernetes Benchmarks")
        .containsEntry(WireNames.CONTENT_HASH_ANNOTATION, "sha256-1");
    assertThat(read.report().results())
        .extracting(Result::source)
        .containsExactly("kube-bench-adapter", "other-tool");

    AggregateResource written = ReportFiles.encode(read);
    CarriedFields.assertCarried(
        "DUMP", CarriedFields.published(DUMP).get(0), CarriedFields.written(written), Set.of());
    ObjectMeta meta = written.getMetadata();
    assertThat(meta.getAnnotations())
        .containsExactly(
            Map.entry("name", "CIS Kubernetes Benchmarks"),
            Map.entry(WireNames.CONTENT_HASH_ANNOTATION, "sha256-1"));
    assertThat(meta.getUid()).isEqualTo("7d9f1d8e-1111-2222-3333-444455556666");
    assertThat(meta.getOwnerReferences()).hasSize(2);
    assertThat(written.getSource()).isEqualTo("kube-bench-adapter");
    assertThat(written.getScope().getResourceVersion()).isEqualTo("99");
    assertThat(written.getScopeSelector().getMatchLabels()).containsEntry("app", "web");
    // the first result had no source of its own, and still has none
    assertThat(written.getResults().get(0).source()).isNull();
    assertThat(written.getResults().get(0).resources().get(0).getFieldPath())
        .isEqualTo("spec.containers[0]");
    assertThat(ReportCodec.decode(written)).isEqualTo(read.report());
  }

  @Test
  void whatTheReportNoLongerHoldsIsWrittenFromTheReport() {
    ReadReport read = ReportFiles.read(DUMP, "default").get(0);
    AggregateReport r = read.report();
    Result changed = r.results().get(0).toBuilder().status(ResultStatus.PASS).build();
    AggregateReport edited =
        new AggregateReport(
            r.ref(),
            r.labels(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            List.of(changed, r.results().get(1)),
            Summary.of(List.of(changed, r.results().get(1))),
            "sha256-2");
    AggregateResource written = ReportFiles.encode(read.withReport(edited));
    assertThat(written.getScope()).isNull();
    assertThat(written.getConfiguration()).isNull();
    assertThat(written.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(written.getMetadata().getAnnotations())
        .containsEntry(WireNames.CONTENT_HASH_ANNOTATION, "sha256-2")
        .containsEntry("name", "CIS Kubernetes Benchmarks");
    // the changed result is the report's; the unchanged one is written as it was read
    assertThat(written.getResults().get(0).source()).isEqualTo("kube-bench-adapter");
    assertThat(written.getResults().get(0).resources().get(0).getFieldPath()).isNull();
    assertThat(written.getResults().get(1).source()).isEqualTo("other-tool");
    assertThat(ReportCodec.decode(written)).isEqualTo(edited);
  }

  @Test
  void fieldsOutsideTheSchemaAreDroppedWithAWarning() {
    String report =
        POLR.replace("  source: kyverno\n", "  source: kyverno\n  status: fail\n")
            + "status:\n  phase: done\n";
    ReadReport read = ReportFiles.read(report, "default").get(0);
    assertThat(read.warnings())
        .extracting(CodecWarning::toString)
        .containsExactly(
            "status: is not a field of wgpolicyk8s.io/v1alpha2 PolicyReport; dropped",
            "results[0].status: is not a field of wgpolicyk8s.io/v1alpha2 PolicyReport (which"
                + " calls it 'result'); dropped");
  }

  @Test
  void aKeyGivenTwiceIsRefusedAsYamlIs() {
    assertThatThrownBy(
            () ->
                ReportFiles.read(
                    POLR.replace("  result: fail\n", "  result: fail\n  result: pass\n"), "x"))
        .isInstanceOf(ReportReadException.class)
        .hasMessage(
            "document 1 (line 9): results[0].result: not valid YAML: key \"result\" is given"
                + " twice");
  }

  @Test
  void scalarsKeepTheTextTheyWereWrittenAs() {
    String report =
        POLR.replace(
            "  source: kyverno\n",
            "  source: kyverno\n  properties:\n    version: 1.10\n    enabled: True\n    empty: ''\n");
    assertThat(ReportFiles.readDocuments(report, "x").get(0).results().get(0).properties())
        .containsExactly(
            Map.entry("empty", ""), Map.entry("enabled", "True"), Map.entry("version", "1.10"));
  }

  // ---------------------------------------------------------------- errors

  @Test
  void aFieldOfTheWrongTypeNamesTheDocumentLineAndPath() {
    String second = POLR.replace("polr-a", "polr-b");
    assertThatThrownBy(
            () ->
                ReportFiles.read(
                    POLR + "---\n" + second.replace("  source: kyverno\n", "  scored: maybe\n"),
                    "default"))
        .isInstanceOf(ReportReadException.class)
        .hasMessage("document 2 (line 19): results[0].scored: is 'maybe', expected true or false")
        .satisfies(
            e -> {
              var r = (ReportReadException) e;
              assertThat(r.document()).isEqualTo(2);
              assertThat(r.line()).isEqualTo(19);
              assertThat(r.field()).isEqualTo("results[0].scored");
            });
    assertThatThrownBy(
            () -> ReportFiles.read(POLR.replaceFirst("results:\n(.|\n)*", "results: abc\n"), "x"))
        .hasMessage("document 1 (line 6): results: is 'abc', expected a list");
    assertThatThrownBy(
            () ->
                ReportFiles.read(
                    POLR.replace("  name: polr-a\n", "  name: polr-a\n  labels: [a]\n"), "x"))
        .hasMessage("document 1 (line 5): metadata.labels: is a list, expected a map");
    assertThatThrownBy(() -> ReportFiles.read(POLR + "  timestamp: 5\n", "x"))
        .hasMessage("document 1 (line 10): results[0].timestamp: is '5', expected a map");
    assertThatThrownBy(
            () -> ReportFiles.read(POLR + "  timestamp: {seconds: 1, nanos: 3000000000}\n", "x"))
        .hasMessage(
            "document 1 (line 10): results[0].timestamp.nanos: is '3000000000', expected an"
                + " integer in [-2147483648, 2147483647]");
    assertThatThrownBy(
            () -> ReportFiles.read(POLR.replace("  name: polr-a\n", "  name: [a]\n"), "x"))
        .hasMessage("document 1 (line 4): metadata.name: is a list, expected a string");
  }

  @Test
  void whatIsNotAReportIsRefusedNamingWhy() {
    assertThatThrownBy(() -> ReportFiles.read("hello\n", "x"))
        .isInstanceOf(ReportReadException.class)
        .hasMessage("document 1 (line 1): is 'hello', not a report object or a List of them");
    assertThatThrownBy(() -> ReportFiles.read(POLR.replace("kind: PolicyReport\n", ""), "x"))
        .hasMessage("document 1 (line 1): kind: is required");
    assertThatThrownBy(() -> ReportFiles.read("apiVersion: v1\nkind: List\nitems: 3\n", "x"))
        .hasMessage("document 1 (line 3): items: is '3', not a list");
  }

  @Test
  void brokenYamlNamesTheDocumentAndLine() {
    String broken =
        POLR.replace("polr-a", "polr-b").replace("- policy: require-labels", "- policy: [require");
    assertThatThrownBy(() -> ReportFiles.read(POLR + "--- # second\n" + broken, "default"))
        .isInstanceOf(ReportReadException.class)
        .hasMessage(
            "document 2 (line 18): results[0].policy[0]: not valid YAML: while parsing a flow"
                + " sequence: expected ',' or ']', but got :");
    assertThatThrownBy(() -> ReportFiles.read("{\"apiVersion\": \"v1\",\n \"kind\": }", "x"))
        .isInstanceOf(ReportReadException.class)
        .hasMessageStartingWith("document 1 (line 2): kind: not valid JSON: Unexpected character");
  }

  @Test
  void severalJsonValuesReadOneAfterAnotherWithTheirEscapesAndTheirText() {
    String json =
        """
        {"apiVersion": "wgpolicyk8s.io/v1alpha2", "kind": "PolicyReport",
         "metadata": {"name": "polr-a", "namespace": "shop"},
         "results": [{"policy": "p", "result": "fail", "message": "a \\"q\\" \\\\ \\u00e9\\n",
                      "properties": {"version": 1.10, "enabled": true, "n": -2e3}}]}
        {"apiVersion": "wgpolicyk8s.io/v1alpha2", "kind": "PolicyReport",
         "metadata": {"name": "polr-b", "namespace": "shop"}, "results": null}
        """;
    List<ReadReport> read = ReportFiles.read(json, "default");
    assertThat(read).extracting(r -> r.report().ref().name()).containsExactly("polr-a", "polr-b");
    Result r = read.get(0).report().results().get(0);
    assertThat(r.message()).isEqualTo("a \"q\" \\ \u00e9\n");
    assertThat(r.properties())
        .containsExactly(
            Map.entry("enabled", "true"), Map.entry("n", "-2e3"), Map.entry("version", "1.10"));
    assertThat(read.get(1).report().results()).isEmpty();
  }

  @Test
  void brokenJsonNamesTheLineAndWhatWasExpected() {
    assertThatThrownBy(
            () -> ReportFiles.read("{\"apiVersion\": \"v1\",\n \"kind\": \"List\",}", "x"))
        .isInstanceOf(ReportReadException.class)
        .hasMessage(
            "document 1 (line 2): kind: not valid JSON: Unexpected character '}': expected a field"
                + " name in double quotes");
    assertThatThrownBy(() -> ReportFiles.read("{\"kind\": \"Li", "x"))
        .hasMessage(
            "document 1 (line 1): kind: not valid JSON: Unexpected end of input in a string");
    assertThatThrownBy(() -> ReportFiles.read("{\"kind\": 01}", "x"))
        .hasMessage(
            "document 1 (line 1): kind: not valid JSON: Unexpected character '1': expected ',' or '}'");
    assertThatThrownBy(() -> ReportFiles.read("{\"a\": 1, \"a\": 2}", "x"))
        .hasMessage("document 1 (line 1): a: not valid JSON: key \"a\" is given twice");
  }

  /**
   * snakeyaml-engine parses JSON as YAML 1.2, which accepts more than JSON: in a JSON text that
   * more is refused, naming what JSON expected.
   */
  @Test
  void jsonThatOnlyYamlAcceptsIsRefused() {
    assertThatThrownBy(() -> ReportFiles.read("[1, 2,]", "x"))
        .isInstanceOf(ReportReadException.class)
        .hasMessage(
            "document 1 (line 1): [1]: not valid JSON: Unexpected character ']': expected a value");
    assertThatThrownBy(() -> ReportFiles.read("{\"a\": 'x'}", "x"))
        .hasMessage(
            "document 1 (line 1): a: not valid JSON: Unexpected character ''': expected a value");
    assertThatThrownBy(() -> ReportFiles.read("{\"a\": \"x\ny\"}", "x"))
        .hasMessage(
            "document 1 (line 1): a: not valid JSON: Unexpected character U+000A: expected a"
                + " character of a string (control characters are escaped)");
    assertThatThrownBy(() -> ReportFiles.read("{\"a\": \"x\\qy\"}", "x"))
        .hasMessage(
            "document 1 (line 1): a: not valid JSON: Unexpected character 'q': expected an escape"
                + " (one of \" \\ / b f n r t u)");
    assertThatThrownBy(() -> ReportFiles.read("{\"a\": 1 # c\n}", "x"))
        .hasMessage(
            "document 1 (line 1): a: not valid JSON: Unexpected character '#': expected ',' or '}'");
    assertThatThrownBy(() -> ReportFiles.read("{\"a\": 1.}", "x"))
        .hasMessage(
            "document 1 (line 1): a: not valid JSON: Unexpected character '}': expected a digit");
  }

  @Test
  void anAliasInsideWhatItNamesIsRefused() {
    assertThatThrownBy(() -> ReportFiles.read("a: &x [*x]\n", "x"))
        .isInstanceOf(ReportReadException.class)
        .hasMessage(
            "document 1 (line 1): a: not valid YAML: an alias refers to the value that holds it");
  }

  @Test
  void yamlAliasesReadAsWhatTheirAnchorNamesAndPlainNullsAsAbsent() {
    String report =
        POLR.replace(
                "  source: kyverno\n",
                "  source: kyverno\n  message: ~\n  properties: &props {team: a, tier: '1'}\n")
            + "- policy: other\n  result: pass\n  message: 'null'\n  properties: *props\n";
    List<Result> results = ReportFiles.readDocuments(report, "x").get(0).results();
    assertThat(results).hasSize(2);
    assertThat(results)
        .allSatisfy(
            r ->
                assertThat(r.properties())
                    .containsExactly(Map.entry("team", "a"), Map.entry("tier", "1")));
    assertThat(results)
        .extracting(Result::policy, Result::message)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("require-labels", ""),
            org.assertj.core.groups.Tuple.tuple("other", "null"));
    assertThatThrownBy(() -> ReportFiles.read(POLR + "  properties: *nowhere\n", "x"))
        .hasMessage(
            "document 1 (line 10): results[0].properties: not valid YAML: no anchor &nowhere before"
                + " the alias *nowhere");
  }

  @Test
  void anErrorInsideAListItemNamesTheItem() {
    String dump =
        """
        apiVersion: v1
        kind: List
        items:
        - apiVersion: wgpolicyk8s.io/v1alpha2
          kind: PolicyReport
          metadata: {name: a, namespace: shop}
        - apiVersion: reports.kyverno.io/v1
          kind: EphemeralReport
          metadata: {name: b, namespace: shop}
        """;
    assertThatThrownBy(() -> ReportFiles.read(dump, "x"))
        .isInstanceOf(ReportReadException.class)
        .hasMessageStartingWith(
            "document 1 (line 8): items[1].kind: 'reports.kyverno.io/v1 EphemeralReport' is not a"
                + " report kind Tally reads");
  }

  /** The {@code V1ALPHA1} sample as fabric8 binds it, holding {@code result} only. */
  private static AggregateResource boundV1alpha1(WireResult result) {
    AggregateResource bound = ReportFiles.encode(ReportFiles.read(V1ALPHA1, "default").get(0));
    bound.setResults(List.of(result));
    return bound;
  }

  /**
   * {@code require-labels/check-team} failing, high and scored, in v1alpha1's layout, with what
   * else the test gives.
   */
  private static WireResult checkTeamFails(
      @Nullable Map<String, String> properties,
      @Nullable WireTimestamp timestamp,
      @Nullable Map<String, String> data) {
    return new WireResult(
        null,
        "require-labels",
        "check-team",
        "fail",
        "high",
        null,
        null,
        true,
        properties,
        timestamp,
        null,
        null,
        null,
        data);
  }
}
