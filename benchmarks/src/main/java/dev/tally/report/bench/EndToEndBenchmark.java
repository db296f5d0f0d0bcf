package dev.tally.report.bench;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.fabric8.producer.PartialReportPublisher;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
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
 * End to end through the fabric8 adapter: the reference workload's partial reports as JSON
 * documents, as the informer receives them (encoded once, in setup, by the adapter's codec: {@link
 * ReportCodec#encodePartial} then fabric8's serialization) → deserialized into {@link
 * PartialReportResource}s and decoded by {@link ReportCodec#decodePartial}, as the controller does
 * for every event → aggregated per namespace → every PolicyReport to write encoded by {@link
 * ReportCodec#encode} and serialized to JSON, the request bodies the writer would send.
 *
 * <p>Beside it in the same class, so that the ratio is read from one run: {@link #decodeOnly} (the
 * first step alone, the cost of reading the input) and {@link #decodeAndAggregate} (stops before
 * encoding). Budget (issue 10): end to end at 100k at most twice decode only. Every decoded string
 * is new for every invocation, as a decoder makes it, so nothing is hashed in advance.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {BenchHeap.MIN, BenchHeap.MAX, BenchHeap.PRE_TOUCH})
public class EndToEndBenchmark {
  /** Results of the reference workload; one JSON document per subject of 10 results. */
  @Param({"100000"})
  public int results;

  /** The serialization a fabric8 client holds, as the informer and the writer use it. */
  final KubernetesSerialization serialization = new KubernetesSerialization();

  /** One PartialReport object per subject, as JSON. */
  List<String> documents = List.of();

  @Setup(Level.Trial)
  public void encodeInput() {
    List<PartialReport> partials = ReferenceWorkload.reference(results).partials();
    List<String> out = new ArrayList<>(partials.size());
    for (PartialReport p : partials) {
      String name = PartialReportPublisher.objectName(p.producer(), p.subject());
      out.add(serialization.asJson(ReportCodec.encodePartial(p, name)));
    }
    documents = List.copyOf(out);
  }

  /** Reading the input and nothing else: JSON → resource → partial report. */
  @Benchmark
  public List<PartialReport> decodeOnly() {
    List<PartialReport> partials = new ArrayList<>(documents.size());
    for (String document : documents) {
      partials.add(decode(document));
    }
    return partials;
  }

  /** Reading the input and aggregating it, without encoding the output. */
  @Benchmark
  public ChangeSet decodeAndAggregate() {
    ReportAggregator aggregator = aggregator();
    for (String document : documents) {
      aggregator.apply(decode(document));
    }
    return aggregator.flush();
  }

  /** JSON in, PolicyReport JSON out: the request bodies of every write of the first flush. */
  @Benchmark
  public List<String> endToEnd() {
    return encode(decodeAndAggregate());
  }

  /** The bodies of the writes in {@code changes}, in order; deletes have none. */
  List<String> encode(ChangeSet changes) {
    List<String> bodies = new ArrayList<>(changes.size());
    for (Change change : changes.changes()) {
      AggregateReport report = null;
      if (change instanceof Change.Create c) {
        report = c.report();
      } else if (change instanceof Change.Update u) {
        report = u.report();
      }
      if (report != null) {
        bodies.add(serialization.asJson(ReportCodec.encode(report)));
      }
    }
    return bodies;
  }

  static ReportAggregator aggregator() {
    return ReportAggregator.builder().grouping(Grouping.perNamespace()).build();
  }

  private PartialReport decode(String document) {
    PartialReportResource resource = serialization.unmarshal(document, PartialReportResource.class);
    return ReportCodec.decodePartial(resource);
  }
}
