package dev.tally.report.fabric8.resource;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;
import io.fabric8.kubernetes.client.CustomResource;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Converts between the immutable report-api model and the custom resource classes, field by field
 * and nothing more: {@code decode(encode(r))} equals {@code r}. Decoding validates through the
 * model, so a bad object fails with an {@link InvalidReportException} naming the field path, such
 * as {@code results[3].result}.
 *
 * <h2>Reading what other tools publish</h2>
 *
 * <p>{@link #read(String, String)} reads YAML or JSON text: several documents (separators may carry
 * comments, {@code --- # second report}), {@code kubectl get -o yaml} dumps (a {@code v1 List}
 * whose {@code items} are reports) and typed lists ({@code PolicyReportList}). It reads {@code
 * wgpolicyk8s.io/v1alpha1} and {@code v1alpha2} PolicyReport and ClusterPolicyReport, and {@code
 * openreports.io/v1alpha1} Report and ClusterReport; any other kind or version is refused, naming
 * it. Each report comes back as a {@link ReadReport} that says which version it came from, keeps
 * the fields the model has no place for, and lists {@link CodecWarning}s (also logged at WARN).
 * {@link #encode(ReadReport)} writes it back in that same version; only {@link #convert(ReadReport,
 * String)} changes the version. Errors are {@link ReportReadException}s naming the document, the
 * line and the field path, as in {@code document 2 (line 14): results[3].result: unknown status
 * 'wrong', expected one of pass, fail, warn, error, skip}.
 *
 * <p>What the official CRDs accept but the model cannot hold is read after one of these
 * normalisations, each with a warning naming the field; nothing else is changed:
 *
 * <ul>
 *   <li>{@code timestamp.nanos} outside [0, 999999999]: the instant {@code seconds + nanos / 10^9}
 *       is kept by carrying whole seconds, {@code seconds += floorDiv(nanos, 10^9)} and {@code
 *       nanos = floorMod(nanos, 10^9)} (so 1500000000 nanos add one second and leave 500000000, and
 *       -1 nanos take one second away and leave 999999999), which is how Go's {@code time.Unix},
 *       and so every Go consumer of these CRDs, reads such a value.
 *   <li>{@code timestamp.seconds} outside [0, {@value Timestamp#MAX_SECONDS}] as published or after
 *       that carry: clamped to the nearest instant the model holds, 0 s 0 ns or {@value
 *       Timestamp#MAX_SECONDS} s 999999999 ns.
 *   <li>a negative {@code summary} count: read as 0.
 *   <li>{@code configuration.limits.maxResults} below 1: read as no limit, as if absent.
 *   <li>{@code metadata.name} absent (hand-written examples and test fixtures): read as {@code
 *       unnamed-<document>}, or {@code unnamed-<document>-<item>} in a List.
 *   <li>a {@code wgpolicyk8s.io/v1alpha1} result whose outcome is spelled {@code result}, as the
 *       v1alpha1 types named it for a while and tools published it (the final schema says {@code
 *       status}): read as the outcome and written back as {@code status}; a {@code status} beside
 *       it is that era's implementation readiness ({@code completed}, {@code partial}, {@code
 *       planned}), which the model has no place for, and is dropped.
 * </ul>
 *
 * <p>A namespaced report without a namespace lands in the default namespace given, as {@code
 * kubectl apply} would put it; an {@code openreports.io} document that says {@code PolicyReport} or
 * {@code ClusterPolicyReport} is read as Report or ClusterReport, with a warning; fields that are
 * not in the schema of the object's version (an API server would prune them) are dropped with a
 * warning.
 */
public final class ReportCodec {
  private ReportCodec() {}

  /** The custom resource class of an aggregate kind. */
  public static Class<? extends AggregateResource> resourceClass(ReportKind kind) {
    return AggregateCodec.resourceClass(kind);
  }

  /** A new, empty custom resource of an aggregate kind. */
  public static AggregateResource newResource(ReportKind kind) {
    return AggregateCodec.newResource(kind);
  }

  // ---------------------------------------------------------------- aggregates

  /**
   * The object to write for an aggregate: its labels, the content hash annotation, an owner
   * reference when it has an owner, and every field of the report.
   *
   * @throws InvalidReportException if a wgpolicy report carries an openreports configuration
   */
  public static AggregateResource encode(AggregateReport report) {
    return AggregateCodec.encode(report);
  }

  /**
   * The aggregate an observed object holds. The content hash is the stored annotation, or empty.
   * Strict: the object must be exactly what the model holds, as everything Tally writes is; use
   * {@link #read(AggregateResource)} for objects other tools wrote.
   *
   * @throws InvalidReportException naming the first invalid field
   */
  public static AggregateReport decode(AggregateResource res) {
    return AggregateCodec.decode(res);
  }

  // ---------------------------------------------------------------- other tools' reports

  /**
   * Reads published reports from YAML or JSON text, one or several documents, as the class comment
   * describes. A namespaced report without a namespace lands in {@code defaultNamespace}.
   *
   * @return the reports in the order of the text, items of a List in their order
   * @throws ReportReadException naming the document, the line and the field if a document is not a
   *     report (or a List of reports) of a kind and version the codec reads, or is invalid
   */
  public static List<ReadReport> read(String text, String defaultNamespace) {
    return ReportReader.read(text, defaultNamespace);
  }

  /**
   * The reports of {@link #read(String, String)}, without what was read about them.
   *
   * @throws ReportReadException as {@link #read(String, String)}
   */
  public static List<AggregateReport> readDocuments(String text, String defaultNamespace) {
    return read(text, defaultNamespace).stream().map(ReadReport::report).toList();
  }

  /**
   * Reads an aggregate object another tool wrote, such as one listed from a cluster: leniently,
   * with the normalisations of the class comment, in the version its {@code apiVersion} names.
   *
   * @throws InvalidReportException naming the first invalid field, or if the object's version is
   *     not one the codec reads
   */
  public static ReadReport read(AggregateResource res) {
    return ReadReportCodec.read(res);
  }

  /**
   * The object to write for a report read from another tool, in the version it was read in: what
   * {@link #encode(AggregateReport)} writes for its report, plus what the model has no place for.
   * Metadata is the metadata as read (annotations, uid, resourceVersion, creationTimestamp and
   * all), with the report's name, namespace, labels and content hash; the top-level {@code source}
   * and {@code scopeSelector} are written as read; scope, owner references, configuration and each
   * result are written exactly as read as long as the report still holds what they were read as,
   * and from the report otherwise.
   *
   * <p>The object is of the class of its kind but its {@code apiVersion} is the one it was read in:
   * write it out with {@link io.fabric8.kubernetes.client.utils.Serialization}, or to a cluster
   * through a client for that version.
   *
   * @throws InvalidReportException if the report holds what its version has no field for (a {@code
   *     wgpolicyk8s.io/v1alpha1} result has no {@code source} and no {@code timestamp}), or a
   *     wgpolicy report carries a configuration
   */
  public static AggregateResource encode(ReadReport read) {
    return ReadReportCodec.encode(read);
  }

  /**
   * The same read report in another version of its kind, such as {@code wgpolicyk8s.io/v1alpha2}
   * for one read as {@code v1alpha1}: the only way the codec changes a version.
   *
   * @throws InvalidReportException if the codec does not write {@code apiVersion}, it has no such
   *     kind, or the report holds what that version cannot (a {@code wgpolicyk8s.io/v1alpha1}
   *     result has no source, no timestamp and only the severities high, medium and low)
   */
  public static ReadReport convert(ReadReport read, String apiVersion) {
    return ReadReportCodec.convert(read, apiVersion);
  }

  // ---------------------------------------------------------------- results

  /**
   * Results as the wire schema holds them, validated; a result without a source takes {@code
   * defaultSource} (the openreports report-level {@code source}).
   *
   * @throws InvalidReportException naming the first invalid field, such as {@code
   *     results[3].result}
   */
  public static List<Result> decodeResults(
      String field, @Nullable List<WireResult> wire, String defaultSource) {
    return ResultCodec.decodeResults(field, wire, defaultSource);
  }

  /** The wire form of one result. */
  public static WireResult encodeResult(Result r) {
    return ResultCodec.encodeResult(r);
  }

  // ---------------------------------------------------------------- partial reports

  /**
   * The partial report object a producer writes for an evaluation: labels for selection, an owner
   * reference to the subject once its uid is known.
   */
  public static CustomResource<PartialReportSpec, Void> encodePartial(
      PartialReport evaluation, String name) {
    return PartialReportCodec.encodePartial(evaluation, name);
  }

  /**
   * The evaluation a partial report object states, checked against where the object lives: a
   * PartialReport may only speak about subjects in its own namespace, a ClusterPartialReport only
   * about cluster-scoped subjects.
   *
   * @throws InvalidReportException naming the first invalid field
   */
  public static PartialReport decodePartial(CustomResource<PartialReportSpec, Void> res) {
    return PartialReportCodec.decodePartial(res);
  }
}
