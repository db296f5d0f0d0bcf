package dev.tally.report.bench;

import dev.tally.report.kyverno.EphemeralReportResource;
import dev.tally.report.kyverno.KyvernoCodec;
import dev.tally.report.merge.kyverno.IntermediateReport;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reading Kyverno's intermediate reports as the aggregator's informers receive them: one
 * background-scan {@code EphemeralReport} per Pod as JSON (Kyverno's labels and annotations, {@link
 * #resultsPerReport} results each with a message, properties and a timestamp) → the {@link
 * IntermediateReport} it holds.
 *
 * <p>Two ways, in one run so that the ratio is read from it: {@link #generic} is how the informers
 * read them before issue 21 (into {@link GenericKubernetesResource} maps, then each result
 * converted again through Jackson by {@link KyvernoCodec#read(GenericKubernetesResource)}); {@link
 * #typed} is how they read them now (straight into {@link EphemeralReportResource}, results into
 * their wire records, once).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {BenchHeap.MIN, BenchHeap.MAX, BenchHeap.PRE_TOUCH})
public class KyvernoDecodeBenchmark {
  /** Reports decoded by one operation, one per Pod. */
  @Param({"1000"})
  public int reports;

  /** Results in each report: one per rule of the policies that match a Pod. */
  @Param({"10"})
  public int resultsPerReport;

  /** The serialization a fabric8 client holds, as its informers use it. */
  final KubernetesSerialization serialization = new KubernetesSerialization();

  /** The reports as JSON, as the watch delivers them. */
  List<String> documents = List.of();

  @Setup(Level.Trial)
  public void encodeInput() {
    List<String> out = new ArrayList<>(reports);
    for (int i = 0; i < reports; i++) {
      out.add(serialization.asJson(report(i, resultsPerReport)));
    }
    documents = List.copyOf(out);
  }

  /** Into generic maps, then each result converted again: the earlier path. */
  @Benchmark
  public List<IntermediateReport> generic() {
    List<IntermediateReport> read = new ArrayList<>(documents.size());
    for (String document : documents) {
      read.add(
          KyvernoCodec.read(serialization.unmarshal(document, GenericKubernetesResource.class)));
    }
    return read;
  }

  /** Straight into the typed report: the informers' path. */
  @Benchmark
  public List<IntermediateReport> typed() {
    List<IntermediateReport> read = new ArrayList<>(documents.size());
    for (String document : documents) {
      read.add(KyvernoCodec.read(serialization.unmarshal(document, EphemeralReportResource.class)));
    }
    return read;
  }

  /** A background-scan report about Pod {@code i}, laid out as Kyverno v1.19 writes it. */
  public static Map<String, Object> report(int i, int results) {
    String uid = String.format("%08x-0000-4000-8000-%012x", i, i);
    String pod = "pod-" + i;
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app.kubernetes.io/managed-by", "kyverno");
    labels.put("audit.kyverno.io/source", "background-scan");
    labels.put("audit.kyverno.io/resource.group", "");
    labels.put("audit.kyverno.io/resource.version", "v1");
    labels.put("audit.kyverno.io/resource.kind", "Pod");
    labels.put("audit.kyverno.io/resource.uid", uid);
    labels.put("audit.kyverno.io/resource.hash", String.format("%032x", i));
    labels.put("cpol.kyverno.io/require-labels", "41" + i % 7);
    labels.put("cpol.kyverno.io/disallow-latest-tag", "52" + i % 5);
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("name", uid);
    meta.put("namespace", "team-" + i % 50);
    meta.put("uid", String.format("%08x-1111-4000-8000-%012x", i, i));
    meta.put("resourceVersion", Integer.toString(100_000 + i));
    meta.put("creationTimestamp", "2026-12-02T15:15:00Z");
    meta.put("labels", labels);
    meta.put(
        "annotations",
        Map.of(
            "audit.kyverno.io/resource.namespace",
            "team-" + i % 50,
            "audit.kyverno.io/resource.name",
            pod,
            "audit.kyverno.io/last-scan-time",
            "2026-12-02T15:15:00Z"));
    meta.put(
        "ownerReferences",
        List.of(Map.of("apiVersion", "v1", "kind", "Pod", "name", pod, "uid", uid)));
    List<Object> out = new ArrayList<>(results);
    for (int r = 0; r < results; r++) {
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("category", "Best Practices");
      result.put("message", "validation rule 'check-" + r + "' passed.");
      result.put("policy", r % 2 == 0 ? "require-labels" : "disallow-latest-tag");
      result.put("properties", Map.of("process", "background scan"));
      result.put("result", r % 3 == 0 ? "fail" : "pass");
      result.put("rule", "check-" + r);
      result.put("scored", true);
      result.put("severity", "medium");
      result.put("source", "kyverno");
      result.put("timestamp", Map.of("nanos", 0, "seconds", 1_796_224_500L + i));
      out.add(result);
    }
    Map<String, Object> object = new LinkedHashMap<>();
    object.put("apiVersion", KyvernoCodec.API_VERSION);
    object.put("kind", KyvernoCodec.EPHEMERAL_REPORT);
    object.put("metadata", meta);
    object.put(
        "spec",
        Map.of(
            "owner",
            Map.of("apiVersion", "v1", "kind", "Pod", "name", pod, "uid", uid),
            "results",
            out,
            "summary",
            Map.of("pass", results - (results + 2) / 3, "fail", (results + 2) / 3)));
    return object;
  }
}
