package dev.tally.report.fabric8.resource;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.Result;
import io.fabric8.kubernetes.client.CustomResource;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Converts between the immutable report-api model and the custom resource classes, field by field
 * and nothing more: {@code decode(encode(r))} equals {@code r}. Decoding validates through the
 * model, so a bad object fails with an {@link InvalidReportException} naming the field path, such
 * as {@code results[3].result}.
 *
 * <p>Decoding is strict: an object must be exactly what the model holds, as everything Tally writes
 * is. Reading what other tools publish (YAML or JSON text, older API versions, values the CRDs
 * accept but the model cannot hold) is the {@code report-files} module's {@code
 * dev.tally.report.files.ReportFiles}.
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
   * Strict: the object must be exactly what the model holds, as everything Tally writes is
   * (report-files' {@code ReportFiles.read(AggregateResource)} reads objects other tools wrote).
   *
   * @throws InvalidReportException naming the first invalid field
   */
  public static AggregateReport decode(AggregateResource res) {
    return AggregateCodec.decode(res);
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
