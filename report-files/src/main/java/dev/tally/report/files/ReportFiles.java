package dev.tally.report.files;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import java.util.List;

/**
 * Reads what other tools publish, and writes it back in the version it was read in;
 * report-fabric8's {@code ReportCodec} is the strict codec of what Tally writes, which this binds
 * through.
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
 *   <li>a {@code wgpolicyk8s.io/v1alpha1} result whose properties are spelled {@code properties},
 *       as the v1alpha1 schema of March 2021 named them (the final schema says {@code data}): read
 *       as the properties and written back as {@code data}. With both fields, the properties are
 *       those of both; on a key both have with different values, {@code properties} wins and the
 *       value in {@code data} is dropped, each with a warning naming {@code data[key]}.
 * </ul>
 *
 * <p>A {@code wgpolicyk8s.io/v1alpha1} result holds what any schema that version was served with
 * named: the outcome, the properties and, from the schema of March 2021, the {@code timestamp},
 * which is read and written back as it is; it holds no {@code source}.
 *
 * <p>A namespaced report without a namespace lands in the default namespace given, as {@code
 * kubectl apply} would put it; an {@code openreports.io} document that says {@code PolicyReport} or
 * {@code ClusterPolicyReport} is read as Report or ClusterReport, with a warning; fields that are
 * not in the schema of the object's version (an API server would prune them) are dropped with a
 * warning.
 *
 * <p>A report is bound to, and written back as, report-fabric8's resource classes ({@link
 * AggregateResource}), through the same binding and strict {@link ReportCodec} the adapter uses.
 */
public final class ReportFiles {
  private ReportFiles() {}

  /**
   * Reads published reports from YAML or JSON text, one or several documents, as the class comment
   * describes. A namespaced report without a namespace lands in {@code defaultNamespace}.
   *
   * @return the reports in the order of the text, items of a List in their order
   * @throws ReportReadException naming the document, the line and the field if a document is not a
   *     report (or a List of reports) of a kind and version Tally reads, or is invalid
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
   *     not one Tally reads
   */
  public static ReadReport read(AggregateResource res) {
    return ReadReportCodec.read(res);
  }

  /**
   * The object to write for a report read from another tool, in the version it was read in: what
   * {@link ReportCodec#encode(AggregateReport)} writes for its report, plus what the model has no
   * place for. Metadata is the metadata as read (annotations, uid, resourceVersion,
   * creationTimestamp and all), with the report's name, namespace, labels and content hash; the
   * top-level {@code source} and {@code scopeSelector} are written as read; scope, owner
   * references, configuration and each result are written exactly as read as long as the report
   * still holds what they were read as, and from the report otherwise.
   *
   * <p>The object is of the class of its kind but its {@code apiVersion} is the one it was read in:
   * write it out with {@link io.fabric8.kubernetes.client.utils.Serialization}, or to a cluster
   * through a client for that version.
   *
   * @throws InvalidReportException if the report holds what its version has no field for (a {@code
   *     wgpolicyk8s.io/v1alpha1} result has no {@code source}), or a wgpolicy report carries a
   *     configuration
   */
  public static AggregateResource encode(ReadReport read) {
    return ReadReportCodec.encode(read);
  }

  /**
   * The same read report in another version of its kind, such as {@code wgpolicyk8s.io/v1alpha2}
   * for one read as {@code v1alpha1}: the only way to change a version.
   *
   * @throws InvalidReportException if Tally does not write {@code apiVersion}, it has no such kind,
   *     or the report holds what that version cannot (a {@code wgpolicyk8s.io/v1alpha1} result has
   *     no source and only the severities high, medium and low)
   */
  public static ReadReport convert(ReadReport read, String apiVersion) {
    return ReadReportCodec.convert(read, apiVersion);
  }
}
