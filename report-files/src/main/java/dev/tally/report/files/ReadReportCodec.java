package dev.tally.report.files;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportKind;
import dev.tally.report.api.Result;
import dev.tally.report.api.Severity;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import dev.tally.report.fabric8.resource.AggregateResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.resource.WireConfiguration;
import dev.tally.report.fabric8.resource.WireResult;
import dev.tally.report.fabric8.resource.WireSummary;
import dev.tally.report.fabric8.resource.WireTimestamp;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aggregate objects other tools published: reading one leniently in the version it names (the
 * normalisations of {@link ReportFiles}' class comment, then report-fabric8's strict decoding),
 * writing a {@link ReadReport} back in that version with what the model has no place for, and
 * converting it to another version. The lenient half of what was report-fabric8's codec: the
 * adapter decodes only what Tally wrote, strictly.
 */
final class ReadReportCodec {
  private static final Logger LOG = LoggerFactory.getLogger(ReportFiles.class);

  private ReadReportCodec() {}

  /** {@link ReportFiles#read(AggregateResource)}, in full. */
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
    AggregateResource copy = Binding.fromJson(Binding.toJson(res), kind);
    List<CodecWarning> warnings = new ArrayList<>();
    UnaryOperator<String> wirePath = UnaryOperator.identity();
    if (version.legacyResults()) {
      V1alpha1Results legacy = fromV1alpha1(copy.getResults(), path -> path, warnings);
      copy.setResults(legacy.results());
      wirePath = legacy::wirePath;
    }
    AggregateReport report = decode(copy, wirePath, path -> path, warnings);
    for (CodecWarning w : warnings) {
      LOG.warn("{} ({}): {}", report.ref(), apiVersion, w);
    }
    return new ReadReport(report, apiVersion, warnings, copy);
  }

  /**
   * The report an object in the layout of {@link WireResult} holds, read leniently: a copy of it is
   * normalised as {@link ReportFiles}' class comment says, adding a warning for each, then decoded
   * strictly. Warnings and errors name the field as the object spelled it ({@code wirePath}, such
   * as {@link V1alpha1Results#wirePath}), under {@code path}.
   *
   * @throws InvalidReportException naming the first invalid field as {@code path} gives it
   */
  static AggregateReport decode(
      AggregateResource res,
      UnaryOperator<String> wirePath,
      UnaryOperator<String> path,
      List<CodecWarning> warnings) {
    AggregateResource copy = Binding.fromJson(Binding.toJson(res), res.reportKind());
    copy.setApiVersion(res.reportKind().apiVersion());
    List<CodecWarning> normalised = new ArrayList<>();
    normalise(copy, normalised);
    AggregateReport report;
    try {
      report = ReportCodec.decode(copy);
    } catch (InvalidReportException e) {
      throw new InvalidReportException(path.apply(wirePath.apply(e.field())), e.reason());
    }
    for (CodecWarning w : normalised) {
      warnings.add(new CodecWarning(path.apply(wirePath.apply(w.field())), w.message()));
    }
    return report;
  }

  // ---------------------------------------------------------------- normalisations

  /**
   * What the CRDs accept but the model cannot hold, made what the model holds, in the order the
   * model reads it: the configuration, each result's timestamp, the summary.
   */
  private static void normalise(AggregateResource res, List<CodecWarning> warnings) {
    WireConfiguration configuration = res.getConfiguration();
    if (configuration != null
        && configuration.limits() != null
        && configuration.limits().maxResults() != null
        && configuration.limits().maxResults() < 1) {
      warnings.add(
          new CodecWarning(
              "configuration.limits.maxResults",
              configuration.limits().maxResults() + " is below 1; read as no limit"));
      res.setConfiguration(
          new WireConfiguration(
              new WireConfiguration.Limits(null, configuration.limits().statusFilter())));
    }
    List<WireResult> results = new ArrayList<>(res.getResults());
    for (int i = 0; i < results.size(); i++) {
      WireResult w = results.get(i);
      if (w != null && w.timestamp() != null) {
        WireTimestamp t = timestamp("results[" + i + "].timestamp", w.timestamp(), warnings);
        if (t != w.timestamp()) {
          results.set(i, withTimestamp(w, t));
        }
      }
    }
    res.setResults(results);
    WireSummary s = res.getSummary();
    if (s != null) {
      res.setSummary(
          new WireSummary(
              count("pass", s.pass(), warnings),
              count("fail", s.fail(), warnings),
              count("warn", s.warn(), warnings),
              count("error", s.error(), warnings),
              count("skip", s.skip(), warnings)));
    }
  }

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  /**
   * A timestamp outside the model's range as the class comment of {@link ReportFiles} says, with a
   * warning naming the field; the same object when it is in range.
   */
  private static WireTimestamp timestamp(
      String path, WireTimestamp t, List<CodecWarning> warnings) {
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
    return seconds == t.seconds() && nanos == t.nanos()
        ? t
        : new WireTimestamp(seconds, (int) nanos);
  }

  /** A summary count: a negative one reads as 0, one over the model's range as its maximum. */
  private static @Nullable Long count(String name, @Nullable Long n, List<CodecWarning> warnings) {
    if (n != null && n < 0) {
      warnings.add(new CodecWarning("summary." + name, n + " is negative; read as 0"));
      return 0L;
    }
    if (n != null && n > Integer.MAX_VALUE) {
      warnings.add(
          new CodecWarning(
              "summary." + name, n + " is over " + Integer.MAX_VALUE + "; read as that"));
      return (long) Integer.MAX_VALUE;
    }
    return n;
  }

  private static WireResult withTimestamp(WireResult w, WireTimestamp t) {
    return new WireResult(
        w.source(),
        w.policy(),
        w.rule(),
        w.result(),
        w.severity(),
        w.category(),
        w.message(),
        w.scored(),
        w.properties(),
        t,
        w.resources(),
        w.resourceSelector(),
        w.status(),
        w.data());
  }

  // ---------------------------------------------------------------- wgpolicyk8s.io/v1alpha1

  /**
   * {@code results} of a {@code wgpolicyk8s.io/v1alpha1} object as {@link
   * #fromV1alpha1(WireResult)} reads them, adding a warning for each outcome given as {@code
   * result} and each properties given as {@code properties} (both are written back under the final
   * schema's names, {@code status} and {@code data}), for each {@code status} that the {@code
   * result} beside it makes a readiness, dropped, and for each key of {@code data} whose value the
   * {@code properties} beside it replace. {@code path} turns {@code results[i].field} into the path
   * the warning names.
   */
  static V1alpha1Results fromV1alpha1(
      List<@Nullable WireResult> results, UnaryOperator<String> path, List<CodecWarning> warnings) {
    List<@Nullable WireResult> out = new ArrayList<>(results.size());
    for (int i = 0; i < results.size(); i++) {
      WireResult w = results.get(i);
      String at = "results[" + i + "]";
      if (w != null && w.result() != null) {
        warnings.add(
            new CodecWarning(
                path.apply(at + ".result"),
                "read as the outcome, which the final wgpolicyk8s.io/v1alpha1 schema calls"
                    + " 'status'; written back as 'status'"));
        if (w.status() != null) {
          warnings.add(
              new CodecWarning(
                  path.apply(at + ".status"),
                  "'"
                      + w.status()
                      + "' dropped: beside 'result' it is the policy's implementation readiness,"
                      + " which Tally does not model"));
        }
      }
      if (w != null && w.properties() != null) {
        warnings.add(
            new CodecWarning(
                path.apply(at + ".properties"),
                "read as the properties, which the final wgpolicyk8s.io/v1alpha1 schema calls"
                    + " 'data'; written back as 'data'"));
        if (w.data() != null) {
          for (var e : w.data().entrySet()) {
            if (w.properties().containsKey(e.getKey())
                && !Objects.equals(w.properties().get(e.getKey()), e.getValue())) {
              warnings.add(
                  new CodecWarning(
                      path.apply(at + ".data[" + e.getKey() + "]"),
                      "dropped: 'properties' beside it has another value for the same key, and"
                          + " 'properties' wins"));
            }
          }
        }
      }
      out.add(w == null ? null : fromV1alpha1(w));
    }
    return new V1alpha1Results(results, out);
  }

  /**
   * The results of a {@code wgpolicyk8s.io/v1alpha1} object in the layout of {@link WireResult}
   * ({@code results}), beside the results as the object spelled them ({@code published}), which
   * {@link #wirePath} names fields by.
   */
  record V1alpha1Results(List<@Nullable WireResult> published, List<@Nullable WireResult> results) {

    private static final Pattern RENAMED =
        Pattern.compile(
            "results\\[(\\d+)\\]\\.(result|properties)(?=$|[.\\[ ])(.*)", Pattern.DOTALL);

    /**
     * A field path of the layout of {@link WireResult} as the object spelled it: {@code
     * results[2].result} is {@code results[2].status} unless that result said {@code result}, and
     * {@code results[2].properties[k]} is {@code results[2].data[k]} unless {@code k} came from
     * {@code properties} (the map as a whole is {@code properties} when the result had that field,
     * {@code data} otherwise).
     */
    String wirePath(String path) {
      Matcher m = RENAMED.matcher(path);
      if (!m.matches()) {
        return path;
      }
      int i = Integer.parseInt(m.group(1));
      WireResult w = i < published.size() ? published.get(i) : null;
      if (w == null) {
        return path;
      }
      String rest = m.group(3);
      String name;
      if (m.group(2).equals("result")) {
        name = w.result() != null ? "result" : "status";
      } else if (rest.startsWith("[") && rest.endsWith("]")) {
        String key = rest.substring(1, rest.length() - 1);
        name = w.properties() != null && w.properties().containsKey(key) ? "properties" : "data";
      } else {
        name = w.properties() != null ? "properties" : "data";
      }
      return "results[" + i + "]." + name + rest;
    }
  }

  /**
   * The reverse of {@link #toV1alpha1}: {@code status} and {@code data} read as the others. The
   * outcome is {@code result} when that is given, as the v1alpha1 types named it from February to
   * April 2021 (with {@code status} in February the policy's implementation readiness, which the
   * model has no place for) and as tools published it; {@code status} otherwise, the final v1alpha1
   * schema's name. The properties are those of {@code data} (the name of February 2021 and of the
   * final schema) and of {@code properties} (that of March 2021) together, {@code properties}
   * winning on a key both have; the {@code timestamp} (March 2021) is kept.
   */
  private static WireResult fromV1alpha1(WireResult w) {
    Map<String, String> properties = w.properties();
    if (w.data() != null) {
      if (properties == null) {
        properties = w.data();
      } else {
        Map<String, String> both = new LinkedHashMap<>(w.data());
        both.putAll(properties);
        properties = both;
      }
    }
    return new WireResult(
        w.source(),
        w.policy(),
        w.rule(),
        w.result() != null ? w.result() : w.status(),
        w.severity(),
        w.category(),
        w.message(),
        w.scored(),
        properties,
        w.timestamp(),
        w.resources(),
        w.resourceSelector(),
        null,
        null);
  }

  /**
   * A result in the layout of {@code wgpolicyk8s.io/v1alpha1}: {@code result} moved to {@code
   * status} and {@code properties} to {@code data}, the final schema's names; a {@code timestamp}
   * stays, as the schema of March 2021 has it (a server serving the final schema drops it).
   */
  private static WireResult toV1alpha1(WireResult w) {
    return new WireResult(
        w.source(),
        w.policy(),
        w.rule(),
        null,
        w.severity(),
        w.category(),
        w.message(),
        w.scored(),
        null,
        w.timestamp(),
        w.resources(),
        w.resourceSelector(),
        w.result(),
        w.properties());
  }

  // ---------------------------------------------------------------- writing back

  /** {@link ReportFiles#encode(ReadReport)}, in full. */
  static AggregateResource encode(ReadReport read) {
    AggregateReport report = read.report();
    WireVersion version = WireVersion.of(read.apiVersion()).orElseThrow();
    checkWritable(report, version, false);
    AggregateResource out = ReportCodec.encode(report);
    AggregateResource kept = read.wire();
    AggregateReport asRead = read.asRead();
    if (kept != null && asRead != null) {
      restore(out, kept, asRead, report);
    }
    if (version.legacyResults()) {
      out.setResults(out.getResults().stream().map(ReadReportCodec::toV1alpha1).toList());
    }
    out.setApiVersion(version.apiVersion());
    return out;
  }

  /** {@link ReportFiles#convert(ReadReport, String)}, in full. */
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

  /**
   * Puts back into {@code out} what {@code kept} holds and the model has no place for: all of it
   * where the report still holds what {@code kept} was read as ({@code asRead}).
   */
  private static void restore(
      AggregateResource out,
      AggregateResource kept,
      AggregateReport asRead,
      AggregateReport report) {
    ObjectMeta model = out.getMetadata();
    ObjectMeta meta = kept.getMetadata() == null ? new ObjectMeta() : kept.getMetadata();
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
    // the owner as the references name it; the namespace is the report's
    if (!asRead
        .owner()
        .map(ReadReportCodec::reference)
        .equals(report.owner().map(ReadReportCodec::reference))) {
      meta.setOwnerReferences(model.getOwnerReferences());
    }
    out.setMetadata(meta);

    if (kept.getScope() != null && report.scope().equals(asRead.scope())) {
      out.setScope(kept.getScope());
    }
    out.setScopeSelector(kept.getScopeSelector());
    if (ReportFormat.of(report.ref().kind())
        .map(ReportFormat::carriesConfiguration)
        .orElse(false)) {
      out.setSource(kept.getSource());
      if (kept.getConfiguration() != null
          && report.configuration().equals(asRead.configuration())) {
        out.setConfiguration(kept.getConfiguration());
      }
    }

    // each result as it was written, while the report still holds what it was read as
    Map<Result, ArrayDeque<WireResult>> written = new HashMap<>();
    List<WireResult> keptResults = kept.getResults();
    for (int i = 0; i < keptResults.size() && i < asRead.results().size(); i++) {
      written
          .computeIfAbsent(asRead.results().get(i), k -> new ArrayDeque<>())
          .add(keptResults.get(i));
    }
    List<WireResult> results = new ArrayList<>(out.getResults());
    for (int i = 0; i < results.size(); i++) {
      ArrayDeque<WireResult> same = written.get(report.results().get(i));
      if (same != null && !same.isEmpty()) {
        results.set(i, same.poll());
      }
    }
    out.setResults(results);
  }

  private static List<String> reference(Subject s) {
    return List.of(s.apiVersion(), s.kind(), s.name(), s.uid());
  }
}
