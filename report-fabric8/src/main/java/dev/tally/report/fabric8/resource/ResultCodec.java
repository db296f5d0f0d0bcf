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
 * result-level timestamps and label selectors. Lenient decoding (with a list of warnings) applies
 * the timestamp normalisations of {@link ReportCodec}'s class comment.
 */
final class ResultCodec {
  private ResultCodec() {}

  /** {@link ReportCodec#decodeResults}, in full: strict. */
  static List<Result> decodeResults(
      String field, @Nullable List<WireResult> wire, String defaultSource) {
    return decodeResults(field, wire, defaultSource, null);
  }

  /** The same; with a list of warnings, lenient as {@link #timestamp} describes. */
  static List<Result> decodeResults(
      String field,
      @Nullable List<WireResult> wire,
      String defaultSource,
      @Nullable List<CodecWarning> warnings) {
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
      out.add(decodeResult(path, w, defaultSource, warnings));
    }
    return out;
  }

  /** One result at {@code path}, never null; lenient with a list of warnings. */
  static Result decodeResult(
      String path, WireResult w, String defaultSource, @Nullable List<CodecWarning> warnings) {
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
      b.timestamp(timestamp(path + ".timestamp", w.timestamp(), warnings));
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

  /**
   * A timestamp; when lenient, one outside the model's range is normalised as the class comment
   * says, with a warning naming the field.
   */
  private static Timestamp timestamp(
      String path, WireTimestamp t, @Nullable List<CodecWarning> warnings) {
    if (warnings == null) {
      return Timestamp.of(path, t.seconds(), t.nanos());
    }
    long seconds = t.seconds();
    long nanos = t.nanos();
    if (nanos < 0 || nanos >= NANOS_PER_SECOND) {
      long carried = Math.floorDiv(nanos, NANOS_PER_SECOND);
      seconds =
          carried > 0 && seconds > Long.MAX_VALUE - carried
              ? Long.MAX_VALUE
              : carried < 0 && seconds < Long.MIN_VALUE - carried
                  ? Long.MIN_VALUE
                  : seconds + carried;
      nanos = Math.floorMod(nanos, NANOS_PER_SECOND);
      warnings.add(
          new CodecWarning(
              path + ".nanos",
              t.nanos()
                  + " is outside [0, 999999999]; read as the same instant, seconds "
                  + seconds
                  + " and nanos "
                  + nanos
                  + " (whole seconds carried)"));
    }
    if (seconds < 0) {
      warnings.add(
          new CodecWarning(
              path + ".seconds",
              seconds + " is before 1970-01-01T00:00:00Z; read as seconds 0 and nanos 0"));
      seconds = 0;
      nanos = 0;
    } else if (seconds > Timestamp.MAX_SECONDS) {
      warnings.add(
          new CodecWarning(
              path + ".seconds",
              seconds
                  + " is after 9999-12-31T23:59:59Z; read as seconds "
                  + Timestamp.MAX_SECONDS
                  + " and nanos 999999999"));
      seconds = Timestamp.MAX_SECONDS;
      nanos = NANOS_PER_SECOND - 1;
    }
    return Timestamp.of(path, seconds, (int) nanos);
  }

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

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
