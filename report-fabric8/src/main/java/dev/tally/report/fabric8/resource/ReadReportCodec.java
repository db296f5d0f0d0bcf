package dev.tally.report.fabric8.resource;

import static dev.tally.report.fabric8.resource.CodecPieces.nonNull;
import static dev.tally.report.fabric8.resource.CodecPieces.optional;
import static dev.tally.report.fabric8.resource.CodecPieces.subject;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.Result;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.WireNames;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aggregate objects other tools published: reading one leniently in the version it names, writing a
 * {@link ReadReport} back in that version with what the model has no place for, and converting it
 * to another version.
 */
final class ReadReportCodec {
  private static final Logger LOG = LoggerFactory.getLogger(ReportCodec.class);

  private ReadReportCodec() {}

  /** {@link ReportCodec#read(AggregateResource)}, in full. */
  static ReadReport read(AggregateResource res) {
    ReportKind kind = res.reportKind();
    String apiVersion = res.getApiVersion() == null ? kind.apiVersion() : res.getApiVersion();
    WireVersion version =
        WireVersion.of(apiVersion)
            .filter(v -> v.has(kind))
            .orElseThrow(
                () ->
                    new InvalidReportException(
                        "apiVersion",
                        "'"
                            + apiVersion
                            + "' is not a version of "
                            + kind.kind()
                            + " that Tally reads; it reads "
                            + WireVersion.known()));
    AggregateResource copy = AggregateCodec.fromJson(AggregateCodec.toJson(res), kind);
    List<CodecWarning> legacy = new ArrayList<>();
    if (version.legacyResults()) {
      copy.setResults(WireResult.fromV1alpha1(copy.getResults(), path -> path, legacy));
    }
    List<CodecWarning> warnings = new ArrayList<>();
    AggregateReport report;
    try {
      report = AggregateCodec.decode(copy, warnings);
    } catch (InvalidReportException e) {
      throw new InvalidReportException(version.wirePath(e.field()), e.reason());
    }
    warnings =
        Stream.concat(
                legacy.stream(),
                warnings.stream()
                    .map(w -> new CodecWarning(version.wirePath(w.field()), w.message())))
            .toList();
    for (CodecWarning w : warnings) {
      LOG.warn("{} ({}): {}", report.ref(), apiVersion, w);
    }
    return new ReadReport(report, apiVersion, warnings, copy);
  }

  /** {@link ReportCodec#encode(ReadReport)}, in full. */
  static AggregateResource encode(ReadReport read) {
    AggregateReport report = read.report();
    WireVersion version = WireVersion.of(read.apiVersion()).orElseThrow();
    checkWritable(report, version, false);
    AggregateResource out = AggregateCodec.encode(report);
    AggregateResource kept = read.wire();
    if (kept != null) {
      restore(out, kept, report);
    }
    if (version.legacyResults()) {
      out.setResults(out.getResults().stream().map(WireResult::toV1alpha1).toList());
    }
    out.setApiVersion(version.apiVersion());
    return out;
  }

  /** {@link ReportCodec#convert(ReadReport, String)}, in full. */
  static ReadReport convert(ReadReport read, String apiVersion) {
    ReportKind kind = read.report().ref().kind();
    WireVersion target =
        WireVersion.of(apiVersion)
            .orElseThrow(
                () ->
                    new InvalidReportException(
                        "apiVersion",
                        "'"
                            + apiVersion
                            + "' is not a version Tally writes; it writes "
                            + WireVersion.known()));
    if (!target.has(kind)) {
      throw new InvalidReportException(
          "apiVersion", "'" + apiVersion + "' has no kind " + kind.kind());
    }
    checkWritable(read.report(), target, true);
    return read.inVersion(target.apiVersion());
  }

  private static final Set<Severity> V1ALPHA1_SEVERITIES =
      EnumSet.of(Severity.HIGH, Severity.MEDIUM, Severity.LOW);

  private static void checkWritable(AggregateReport report, WireVersion version, boolean values) {
    if (!version.legacyResults()) {
      return;
    }
    for (int i = 0; i < report.results().size(); i++) {
      Result r = report.results().get(i);
      String path = "results[" + i + "]";
      if (!r.source().isEmpty()) {
        throw new InvalidReportException(
            path + ".source",
            "'" + r.source() + "' cannot be written: " + version.apiVersion() + " has no source");
      }
      if (r.timestamp().isPresent()) {
        throw new InvalidReportException(
            path + ".timestamp",
            "cannot be written: " + version.apiVersion() + " has no result timestamp");
      }
      if (values && r.severity().filter(s -> !V1ALPHA1_SEVERITIES.contains(s)).isPresent()) {
        throw new InvalidReportException(
            path + ".severity",
            "'"
                + r.severity().get().wireName()
                + "' is not a severity of "
                + version.apiVersion()
                + " (high, medium, low)");
      }
    }
  }

  /** Puts back into {@code out} what {@code kept} holds and the model has no place for. */
  private static void restore(
      AggregateResource out, AggregateResource kept, AggregateReport report) {
    ObjectMeta model = out.getMetadata();
    ObjectMeta meta = kept.getMetadata() == null ? new ObjectMeta() : kept.getMetadata();
    String namespace = nonNull(model.getNamespace());
    Optional<Subject> keptOwner;
    try {
      keptOwner = AggregateCodec.owner(meta.getOwnerReferences(), namespace);
    } catch (InvalidReportException e) {
      keptOwner = Optional.empty();
    }
    meta.setName(model.getName());
    meta.setNamespace(model.getNamespace());
    meta.setLabels(model.getLabels());
    Map<String, String> annotations =
        new LinkedHashMap<>(meta.getAnnotations() == null ? Map.of() : meta.getAnnotations());
    annotations.remove(WireNames.CONTENT_HASH_ANNOTATION);
    if (!report.contentHash().isEmpty()) {
      annotations.put(WireNames.CONTENT_HASH_ANNOTATION, report.contentHash());
    }
    meta.setAnnotations(annotations.isEmpty() ? null : annotations);
    if (!keptOwner.equals(report.owner())) {
      meta.setOwnerReferences(model.getOwnerReferences());
    }
    out.setMetadata(meta);

    if (kept.getScope() != null
        && report.scope().equals(optional(() -> subject(kept.getScope())))) {
      out.setScope(kept.getScope());
    }
    out.setScopeSelector(kept.getScopeSelector());
    if (report.ref().kind().openReports()) {
      out.setSource(kept.getSource());
      if (kept.getConfiguration() != null
          && report
              .configuration()
              .equals(
                  optional(
                          () ->
                              AggregateCodec.configuration(
                                  kept.getConfiguration(), new ArrayList<>()))
                      .flatMap(c -> c))) {
        out.setConfiguration(kept.getConfiguration());
      }
    }

    // each result as it was written, while the report still holds what it was read as
    Map<Result, ArrayDeque<WireResult>> asRead = new HashMap<>();
    String defaultSource = nonNull(kept.getSource());
    for (WireResult w : kept.getResults()) {
      if (w != null) {
        optional(() -> ResultCodec.decodeResult("results[0]", w, defaultSource, new ArrayList<>()))
            .ifPresent(r -> asRead.computeIfAbsent(r, k -> new ArrayDeque<>()).add(w));
      }
    }
    List<WireResult> results = new ArrayList<>(out.getResults());
    for (int i = 0; i < results.size(); i++) {
      ArrayDeque<WireResult> same = asRead.get(report.results().get(i));
      if (same != null && !same.isEmpty()) {
        results.set(i, same.poll());
      }
    }
    out.setResults(results);
  }
}
