package dev.tally.report.fabric8.client;

import dev.tally.report.bench.BenchHeap;
import dev.tally.report.bench.KyvernoDecodeBenchmark;
import dev.tally.report.kyverno.EphemeralReportResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
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
 * Reading the watch events of Kyverno's intermediate reports as the aggregator's client reads them
 * ({@link ApiServerJson#serialization()}, {@link WatchEvents}): for each of {@link #reports}
 * background-scan reports, its ADDED event ({@link #added}: the report bound to its class) and its
 * DELETED event ({@link #deleted}: its identity, the rest skipped), each as the API server writes
 * it, {@code metadata.managedFields} included: one entry naming the fields its writer set, its
 * owner reference by the Pod's uid ({@code k:{"uid":"…"}}), a name no earlier report had.
 *
 * <p>{@link #names}: {@code kept} reads with Jackson's table of field names, as fabric8's default
 * serialization and Tally's do; {@code not-kept} without it, each name a new string (tried because
 * the table copies itself for every report's new name: benchmarks/README.md, "Field names kept").
 * One run, so that the ratio is read from it. The aggregator's JVM compiles with C1 only (the
 * chart's default): run it also with {@code -jvmArgsAppend -XX:TieredStopAtLevel=1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {BenchHeap.MIN, BenchHeap.MAX, BenchHeap.PRE_TOUCH})
public class WatchEventDecodeBenchmark {
  /** Reports whose events one operation reads, one per Pod. */
  @Param({"1000"})
  public int reports;

  /** Whether the reader keeps a table of field names. */
  @Param({"kept", "not-kept"})
  public String names;

  KubernetesSerialization serialization = ApiServerJson.serialization();

  /** Each report's ADDED event, as the watch delivers it. */
  List<String> addedEvents = List.of();

  /** Each report's DELETED event. */
  List<String> deletedEvents = List.of();

  @Setup(Level.Trial)
  public void encodeInput() {
    serialization = ApiServerJson.serialization("kept".equals(names));
    serialization.registerKubernetesResource(EphemeralReportResource.class);
    KubernetesSerialization writing = new KubernetesSerialization();
    List<String> added = new ArrayList<>(reports);
    List<String> deleted = new ArrayList<>(reports);
    for (int i = 0; i < reports; i++) {
      Map<String, Object> report = asServed(KyvernoDecodeBenchmark.report(i, 10));
      added.add(writing.asJson(event("ADDED", report)));
      deleted.add(writing.asJson(event("DELETED", report)));
    }
    addedEvents = List.copyOf(added);
    deletedEvents = List.copyOf(deleted);
  }

  /** A watch event as the API server writes it: its type first. */
  private static Map<String, Object> event(String type, Map<String, Object> object) {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("type", type);
    event.put("object", object);
    return event;
  }

  @Benchmark
  public List<Object> added() {
    return read(addedEvents);
  }

  @Benchmark
  public List<Object> deleted() {
    return read(deletedEvents);
  }

  private List<Object> read(List<String> events) {
    List<Object> read = new ArrayList<>(events.size());
    for (String event : events) {
      read.add(serialization.unmarshal(event, WatchEvent.class).getObject());
    }
    return read;
  }

  /**
   * {@code report} with the {@code managedFields} the API server adds: one entry of the writer that
   * created it, whose {@code fieldsV1} names every field it set ({@code f:name}), an owner
   * reference by its uid, a list of results as one field (a custom resource's lists are atomic
   * unless its schema says otherwise).
   */
  static Map<String, Object> asServed(Map<String, Object> report) {
    @SuppressWarnings("unchecked")
    Map<String, Object> metadata = (Map<String, Object>) report.get("metadata");
    Map<String, Object> fields = new LinkedHashMap<>();
    for (var e : report.entrySet()) {
      if (!e.getKey().equals("apiVersion") && !e.getKey().equals("kind")) {
        fields.put("f:" + e.getKey(), fieldsOf(e.getKey(), e.getValue()));
      }
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> meta = (Map<String, Object>) fields.get("f:metadata");
    for (String set : List.of("f:name", "f:namespace", "f:uid", "f:resourceVersion")) {
      meta.remove(set); // the server's, not the writer's
    }
    meta.remove("f:creationTimestamp");
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("apiVersion", report.get("apiVersion"));
    entry.put("fieldsType", "FieldsV1");
    entry.put("fieldsV1", fields);
    entry.put("manager", "reports-controller");
    entry.put("operation", "Update");
    entry.put("time", "2026-12-02T15:15:00Z");
    Map<String, Object> served = new LinkedHashMap<>(report);
    Map<String, Object> servedMeta = new LinkedHashMap<>(metadata);
    servedMeta.put("generation", 1);
    servedMeta.put("managedFields", List.of(entry));
    served.put("metadata", servedMeta);
    return served;
  }

  private static Object fieldsOf(String name, Object value) {
    Map<String, Object> set = new LinkedHashMap<>();
    if (name.equals("ownerReferences") && value instanceof List<?> owners) {
      set.put(".", Map.of());
      for (Object owner : owners) {
        Map<String, Object> ownerFields = new LinkedHashMap<>();
        ownerFields.put(".", Map.of());
        for (Object key : ((Map<?, ?>) owner).keySet()) {
          ownerFields.put("f:" + key, Map.of());
        }
        set.put("k:{\"uid\":\"" + ((Map<?, ?>) owner).get("uid") + "\"}", ownerFields);
      }
    } else if (value instanceof Map<?, ?> map) {
      set.put(".", Map.of());
      for (var e : map.entrySet()) {
        set.put("f:" + e.getKey(), fieldsOf(String.valueOf(e.getKey()), e.getValue()));
      }
    }
    return set;
  }
}
