package dev.tally.report.files;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.fabric8.resource.AggregateResource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One report as {@link ReportFiles} read it from what another tool published: the report, the API
 * version it came from, the warnings raised while reading it, and the fields of the published
 * object that {@link AggregateReport} has no place for (all of {@code metadata} but name, namespace
 * and labels, the openreports top-level {@code source}, {@code scopeSelector}, and the exact wire
 * form of scope, owner references, configuration and each result).
 *
 * <p>{@link ReportFiles#encode(ReadReport)} writes it back in the version it came from with those
 * fields; {@link ReportFiles#convert(ReadReport, String)} is the only way to another version.
 * Immutable.
 */
public final class ReadReport {
  private final AggregateReport report;
  private final String apiVersion;
  private final List<CodecWarning> warnings;
  private final @Nullable String wire;
  private final @Nullable AggregateReport asRead;
  private final Map<String, String> annotations;
  private final Optional<String> source;

  ReadReport(
      AggregateReport report,
      String apiVersion,
      List<CodecWarning> warnings,
      @Nullable AggregateResource wire) {
    this(
        report,
        apiVersion,
        warnings,
        wire == null ? null : Binding.toJson(wire),
        wire == null ? null : report,
        wire == null || wire.getMetadata() == null || wire.getMetadata().getAnnotations() == null
            ? Map.of()
            : wire.getMetadata().getAnnotations(),
        wire == null ? null : wire.getSource());
  }

  private ReadReport(
      AggregateReport report,
      String apiVersion,
      List<CodecWarning> warnings,
      @Nullable String wire,
      @Nullable AggregateReport asRead,
      Map<String, String> annotations,
      @Nullable String source) {
    this.report = Objects.requireNonNull(report, "report");
    this.apiVersion = Objects.requireNonNull(apiVersion, "apiVersion");
    WireVersion version =
        WireVersion.of(apiVersion)
            .orElseThrow(
                () ->
                    new InvalidReportException(
                        "apiVersion",
                        "'" + apiVersion + "' is not a version Tally reads or writes"));
    if (!version.has(report.ref().kind())) {
      throw new InvalidReportException(
          "kind",
          report.ref().kind().kind() + " is not a kind of " + apiVersion + "; convert it instead");
    }
    this.warnings = List.copyOf(warnings);
    this.wire = wire;
    this.asRead = asRead;
    this.annotations =
        annotations.isEmpty()
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new TreeMap<>(annotations));
    this.source = Optional.ofNullable(source).filter(s -> !s.isEmpty());
  }

  /** A report that was not read from anywhere, in the version Tally writes its kind in. */
  public static ReadReport of(AggregateReport report) {
    return new ReadReport(report, report.ref().kind().apiVersion(), List.of(), null);
  }

  /**
   * The same read document with other content, such as a report with one more result: the version
   * and the retained fields stay. A retained wire form is used only where the new report still
   * holds exactly what it was read as (see {@link ReportFiles#encode(ReadReport)}).
   *
   * @throws InvalidReportException if the new report's kind is not one of this version's
   */
  public ReadReport withReport(AggregateReport newReport) {
    return new ReadReport(
        newReport, apiVersion, warnings, wire, asRead, annotations, source.orElse(null));
  }

  /** The same read document in another version of its group; see {@link ReportFiles#convert}. */
  ReadReport inVersion(String newApiVersion) {
    return new ReadReport(
        report, newApiVersion, warnings, wire, asRead, annotations, source.orElse(null));
  }

  /** The report. */
  public AggregateReport report() {
    return report;
  }

  /** The API version it came from, such as {@code wgpolicyk8s.io/v1alpha1}. */
  public String apiVersion() {
    return apiVersion;
  }

  /** What was read differently from how it was written, or left out, in document order. */
  public List<CodecWarning> warnings() {
    return warnings;
  }

  /** Every annotation of the published object, as read (the model keeps only the content hash). */
  public Map<String, String> annotations() {
    return annotations;
  }

  /** The openreports top-level {@code source}, if the object had one. */
  public Optional<String> source() {
    return source;
  }

  /**
   * A fresh copy of the object as read (before any normalisation), in the layout of {@link
   * dev.tally.report.fabric8.resource.WireResult}; null if none.
   */
  @Nullable AggregateResource wire() {
    return wire == null ? null : Binding.fromJson(wire, report.ref().kind());
  }

  /** The report as it was read, which {@link #wire()} holds; null if it was not read. */
  @Nullable AggregateReport asRead() {
    return asRead;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ReadReport r
        && report.equals(r.report)
        && apiVersion.equals(r.apiVersion)
        && warnings.equals(r.warnings)
        && Objects.equals(wire, r.wire);
  }

  @Override
  public int hashCode() {
    return Objects.hash(report, apiVersion, warnings, wire);
  }

  @Override
  public String toString() {
    return "ReadReport["
        + report.ref()
        + " "
        + apiVersion
        + (warnings.isEmpty() ? "" : ", " + warnings.size() + " warning(s)")
        + "]";
  }
}
