package dev.tally.report.fabric8.resource;

import static dev.tally.report.fabric8.resource.CodecPieces.emptyToNull;
import static dev.tally.report.fabric8.resource.CodecPieces.field;
import static dev.tally.report.fabric8.resource.CodecPieces.noNullValues;
import static dev.tally.report.fabric8.resource.CodecPieces.nonNull;
import static dev.tally.report.fabric8.resource.CodecPieces.subject;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Results between the model and the wire: {@link Result} to {@link WireResult} and back, with the
 * result-level timestamps and label selectors; strict.
 */
final class ResultCodec {
  private ResultCodec() {}

  /** {@link ReportCodec#decodeResults}, in full: strict. */
  static List<Result> decodeResults(
      String field, @Nullable List<WireResult> wire, String defaultSource) {
    if (wire == null) {
      return List.of();
    }
    List<Result> out = new ArrayList<>(wire.size());
    for (int i = 0; i < wire.size(); i++) {
      String path = field + "[" + i + "]";
      WireResult w = wire.get(i);
      if (w == null) {
        throw new InvalidReportException(path, "is null");
      }
      out.add(decodeResult(path, w, defaultSource));
    }
    return out;
  }

  /** One result at {@code path}, never null. */
  private static Result decodeResult(String path, WireResult w, String defaultSource) {
    if (w.result() == null) {
      throw new InvalidReportException(path + ".result", "is required");
    }
    var b =
        Result.builder()
            .source(w.source() == null || w.source().isEmpty() ? defaultSource : w.source())
            .policy(nonNull(w.policy()))
            .rule(nonNull(w.rule()))
            .status(ResultStatus.fromWire(path + ".result", w.result()))
            .category(nonNull(w.category()))
            .message(nonNull(w.message()))
            .scored(w.scored())
            .properties(
                w.properties() == null
                    ? Map.of()
                    : noNullValues(path + ".properties", w.properties()));
    if (w.severity() != null && !w.severity().isEmpty()) {
      b.severity(Severity.fromWire(path + ".severity", w.severity().toLowerCase(Locale.ROOT)));
    }
    if (w.timestamp() != null) {
      WireTimestamp t = w.timestamp();
      b.timestamp(Timestamp.of(path + ".timestamp", t.seconds(), t.nanos()));
    }
    if (w.resources() != null) {
      List<Subject> resources = new ArrayList<>();
      for (int j = 0; j < w.resources().size(); j++) {
        ObjectReference ref = w.resources().get(j);
        String at = path + ".resources[" + j + "]";
        if (ref == null) {
          throw new InvalidReportException(at, "is null");
        }
        resources.add(field(at, () -> subject(ref)));
      }
      b.resources(resources);
    }
    if (w.resourceSelector() != null) {
      b.resourceSelector(field(path + ".resourceSelector", () -> selector(w.resourceSelector())));
    }
    try {
      return b.build();
    } catch (InvalidReportException e) {
      throw e.under(path);
    }
  }

  /** The wire form of one result. */
  static WireResult encodeResult(Result r) {
    return new WireResult(
        emptyToNull(r.source()),
        r.policy(),
        emptyToNull(r.rule()),
        r.status().wireName(),
        r.severity().map(Severity::wireName).orElse(null),
        emptyToNull(r.category()),
        emptyToNull(r.message()),
        r.scored().orElse(null),
        r.properties().isEmpty() ? null : new TreeMap<>(r.properties()),
        r.timestamp().map(t -> new WireTimestamp(t.seconds(), t.nanos())).orElse(null),
        r.resources().isEmpty()
            ? null
            : r.resources().stream().map(CodecPieces::reference).toList(),
        r.resourceSelector().map(ResultCodec::selector).orElse(null));
  }

  private static io.fabric8.kubernetes.api.model.LabelSelector selector(
      dev.tally.report.api.LabelSelector s) {
    var out = new io.fabric8.kubernetes.api.model.LabelSelector();
    if (!s.matchLabels().isEmpty()) {
      out.setMatchLabels(new TreeMap<>(s.matchLabels()));
    }
    if (!s.matchExpressions().isEmpty()) {
      out.setMatchExpressions(
          s.matchExpressions().stream()
              .map(r -> new LabelSelectorRequirement(r.key(), r.operator(), r.values()))
              .toList());
    }
    return out;
  }

  private static dev.tally.report.api.LabelSelector selector(
      io.fabric8.kubernetes.api.model.LabelSelector s) {
    List<dev.tally.report.api.LabelSelector.Requirement> expressions = new ArrayList<>();
    if (s.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : s.getMatchExpressions()) {
        expressions.add(
            new dev.tally.report.api.LabelSelector.Requirement(
                nonNull(r.getKey()),
                nonNull(r.getOperator()),
                r.getValues() == null ? List.of() : r.getValues()));
      }
    }
    return new dev.tally.report.api.LabelSelector(
        s.getMatchLabels() == null ? Map.of() : s.getMatchLabels(), expressions);
  }
}
