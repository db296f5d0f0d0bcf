package dev.tally.kyverno.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The produced mode's pieces that need no control plane. */
class ProducedTest {
  @Test
  void goJsonSortsKeysAndEscapesAsGo() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("b", List.of(1, 2.5, true));
    m.put("a", "<x & \"y\">\n");
    m.put("c", null);
    assertThat(ResourceHash.goJson(m))
        .isEqualTo(
            "{\"a\":\"\\u003cx \\u0026 \\\"y\\\"\\u003e\\n\",\"b\":[1,2.5,true],\"c\":null}");
  }

  @Test
  void hashIsTheMd5OfLabelsAnnotationsAndTheObjectWithoutMetadataStatusAndNodeName() {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("nodeName", "n1");
    spec.put("x", 1);
    Map<String, Object> obj = new LinkedHashMap<>();
    obj.put("kind", "Pod");
    obj.put("metadata", Map.of("name", "p"));
    obj.put("status", Map.of("phase", "Pending"));
    obj.put("spec", spec);
    // md5 of [{"team":"shop"},null,{"kind":"Pod","spec":{"x":1}}]
    assertThat(ResourceHash.of(Map.of("team", "shop"), null, obj))
        .isEqualTo(md5("[{\"team\":\"shop\"},null,{\"kind\":\"Pod\",\"spec\":{\"x\":1}}]"));
  }

  @Test
  void tracesAreSummedPerPackage() {
    String traces =
        String.join(
            "\n",
            "File: reports-controller",
            "Type: cpu",
            "Duration: 30s, Total samples = 1.25s ( 4.17%)",
            "-----------+-------------------------------------------------------",
            "      10ms   runtime.futex",
            "             github.com/kyverno/kyverno/pkg/controllers/report/aggregate.(*controller)"
                + ".backReconcile",
            "-----------+-------------------------------------------------------",
            "  goroutine:  7",
            "      1.20s   encoding/json.Marshal (inline)",
            "             github.com/kyverno/kyverno/pkg/controllers/report/background.scan",
            "-----------+-------------------------------------------------------",
            "      40ms   runtime.mallocgc",
            "-----------+-------------------------------------------------------");
    CpuProfile.Samples s =
        CpuProfile.parseTraces(
            traces, "pkg/controllers/report/aggregate", "pkg/controllers/report/background");
    assertThat(s.total()).isCloseTo(1.25, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(s.in()[0]).isCloseTo(0.01, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(s.in()[1]).isCloseTo(1.2, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void pickedIsDeterministicAndNearTheFraction() {
    int n = 0;
    for (int i = 0; i < 100_000; i++) {
      n += ReportProducer.picked(i, 2, 0.1) ? 1 : 0;
      assertThat(ReportProducer.picked(i, 2, 0)).isFalse();
    }
    assertThat(n).isBetween(9_500, 10_500);
    assertThat(ReportProducer.picked(7, 3, 0.5)).isEqualTo(ReportProducer.picked(7, 3, 0.5));
  }

  @Test
  void combinationsMatchTheFourTemplatePods() {
    for (int i = 0; i < 60; i++) {
      int c = ReportProducer.combination(i);
      assertThat(SideBySide.pod(i).getMetadata().getLabels())
          .isEqualTo(SideBySide.pod(c).getMetadata().getLabels());
    }
  }

  @Test
  void summaryCountsTheResults() {
    List<Map<String, Object>> results = new ArrayList<>();
    results.add(Map.of("result", "pass"));
    results.add(Map.of("result", "fail"));
    results.add(Map.of("result", "pass"));
    assertThat(ReportProducer.summary(results))
        .containsEntry("pass", 2L)
        .containsEntry("fail", 1L)
        .containsEntry("warn", 0L)
        .containsEntry("error", 0L)
        .containsEntry("skip", 0L);
  }

  @Test
  void aReportIsItsTemplateMadeThePodsAndAToggleSwapsTheVerdictWithItsMessageAndSummary() {
    List<ReportProducer.Template> templates = new ArrayList<>();
    for (int c = 0; c < 4; c++) {
      templates.add(template(c));
    }
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      ReportProducer producer =
          new ReportProducer(client, "ns", templates, true, SideBySide::pod, 100);
      producer.expect(2);
      GenericKubernetesResource pod = pod("load-00001", "uid-1");
      producer.created(1, pod);

      Map<String, Object> report = producer.report(1, 1234);
      Map<String, Object> metadata = ReportProducer.map(report, "metadata");
      assertThat(metadata).containsEntry("generateName", "uid-1-");
      assertThat(ReportProducer.map(metadata, "labels"))
          .containsEntry(ScanWatch.RESOURCE_UID, "uid-1")
          .containsEntry(ReportProducer.RESOURCE_HASH, ReportProducer.hash(pod));
      assertThat(ReportProducer.map(metadata, "annotations"))
          .containsEntry(ReportProducer.RESOURCE_NAME, "load-00001");
      assertThat(metadata.get("ownerReferences").toString()).contains("load-00001", "uid-1");
      assertThat(ReportProducer.results(report))
          .allSatisfy(r -> assertThat(r.get("timestamp").toString()).contains("1234"))
          .anySatisfy(
              r ->
                  assertThat(r)
                      .containsEntry("rule", "check-team")
                      .containsEntry("result", "fail"));
      assertThat(ReportProducer.map(report, "spec").get("summary").toString())
          .contains("fail=1", "pass=1");
      // the template is left as it was
      assertThat(metadata).isNotSameAs(ReportProducer.map(templates.get(1).report(), "metadata"));

      producer.toggle(1);
      Map<String, Object> toggled = producer.report(1, 1300);
      assertThat(ReportProducer.results(toggled))
          .anySatisfy(
              r ->
                  assertThat(r)
                      .containsEntry("rule", "check-team")
                      .containsEntry("result", "pass")
                      .containsEntry("message", "check-team passed"));
      assertThat(ReportProducer.map(toggled, "spec").get("summary").toString())
          .contains("fail=0", "pass=2");
    }
  }

  /** Template Pod c's report: check-team passes when Pod c has the team label. */
  private static ReportProducer.Template template(int c) {
    boolean team = SideBySide.pod(c).getMetadata().getLabels().containsKey("team");
    Map<String, Object> labels = new LinkedHashMap<>();
    labels.put(ScanWatch.RESOURCE_UID, "t-uid-" + c);
    labels.put(ReportProducer.RESOURCE_HASH, "t-hash-" + c);
    Map<String, Object> annotations = new LinkedHashMap<>();
    annotations.put(ReportProducer.RESOURCE_NAME, "template-" + c);
    Map<String, Object> owner = new LinkedHashMap<>();
    owner.put("name", "template-" + c);
    owner.put("uid", "t-uid-" + c);
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("generateName", "t-uid-" + c + "-");
    metadata.put("labels", labels);
    metadata.put("annotations", annotations);
    metadata.put("ownerReferences", List.of(owner));
    List<Map<String, Object>> results = new ArrayList<>();
    results.add(
        result("check-team", team ? "pass" : "fail", team ? "check-team passed" : "no team"));
    results.add(result("baseline", "pass", "ok"));
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("results", results);
    spec.put("summary", Map.of("pass", 0, "fail", 0, "warn", 0, "error", 0, "skip", 0));
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("metadata", metadata);
    report.put("spec", spec);
    return new ReportProducer.Template(report, "template-" + c, "t-uid-" + c);
  }

  private static Map<String, Object> result(String rule, String result, String message) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("policy", rule.equals("check-team") ? Policies.LABELS : Policies.POD_SECURITY);
    r.put("rule", rule);
    r.put("result", result);
    r.put("message", message);
    r.put("timestamp", new LinkedHashMap<>(Map.of("nanos", 0, "seconds", 1)));
    return r;
  }

  private static GenericKubernetesResource pod(String name, String uid) {
    GenericKubernetesResource pod = new GenericKubernetesResource();
    pod.setMetadata(new ObjectMetaBuilder().withName(name).withUid(uid).build());
    return pod;
  }

  private static String md5(String s) {
    try {
      return java.util.HexFormat.of()
          .formatHex(
              java.security.MessageDigest.getInstance("MD5")
                  .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
