package dev.tally.report.merge.kyverno;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.publish.ClockRule;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What one of Kyverno's intermediate reports says, as a Tally {@link PartialReport}: the rule of
 * docs/DESIGN.md, "Kyverno's intermediate reports". Pure: labels, annotations and results in, a
 * partial report (or the reason there is none yet) out.
 *
 * <ul>
 *   <li><b>Producer</b>: {@code kyverno/} and the {@code audit.kyverno.io/source} label ({@code
 *       kyverno/admission}, {@code kyverno/background-scan}); {@code kyverno} without it.
 *   <li><b>Subject</b>: apiVersion from the {@code audit.kyverno.io/resource.group} and {@code
 *       .version} labels, kind from {@code .kind}, namespace and name from the {@code
 *       audit.kyverno.io/resource.namespace} and {@code .name} annotations (labels of those keys
 *       when there is no annotation; the report's own namespace when neither names one), uid from
 *       the {@code audit.kyverno.io/resource.uid} label, else the owner reference. Without a uid
 *       the report {@linkplain Outcome.AwaitsAdoption awaits adoption}.
 *   <li><b>Coverage</b>: one (source, policy) per policy label ({@code cpol.kyverno.io/<name>} is
 *       ({@code kyverno}, name), {@code pol.kyverno.io/<name>} is ({@code kyverno},
 *       namespace/name), {@code vpol}, {@code ivpol}, {@code gpol}, {@code mpol} and the two
 *       admission-policy prefixes name their own sources), united with the keys of the results. So
 *       a scan that evaluated a policy and produced no result for it retracts that policy's
 *       results; where the labels are missing or name a kind of policy whose source is not known
 *       ({@code dpol.kyverno.io}, a future prefix), the results' own keys are the coverage and
 *       nothing else is retracted.
 *   <li><b>observedAt</b>: the latest of the results' timestamps, the {@code
 *       audit.kyverno.io/last-scan-time} annotation and the report's creation time.
 *   <li><b>subjectVersion</b>: the {@code audit.kyverno.io/resource.hash} label, if any.
 * </ul>
 *
 * <p>{@link #seed} reads the other side: a per-resource report Kyverno's reports controller (or
 * Tally in Kyverno's layout) already wrote, as what it states, so that an aggregator rebuilt after
 * the intermediate reports were consumed still holds it.
 */
public final class KyvernoMapping {
  public static final String SOURCE_LABEL = "audit.kyverno.io/source";
  public static final String UID_LABEL = "audit.kyverno.io/resource.uid";
  public static final String GROUP_LABEL = "audit.kyverno.io/resource.group";
  public static final String VERSION_LABEL = "audit.kyverno.io/resource.version";
  public static final String KIND_LABEL = "audit.kyverno.io/resource.kind";
  public static final String HASH_LABEL = "audit.kyverno.io/resource.hash";
  public static final String NAMESPACE_ANNOTATION = "audit.kyverno.io/resource.namespace";
  public static final String NAME_ANNOTATION = "audit.kyverno.io/resource.name";
  public static final String LAST_SCAN_ANNOTATION = "audit.kyverno.io/last-scan-time";

  /** Label prefix of each kind of policy, and the result {@code source} Kyverno gives it. */
  static final Map<String, String> POLICY_SOURCES =
      Map.of(
          "cpol.kyverno.io",
          "kyverno",
          "pol.kyverno.io",
          "kyverno",
          "vpol.kyverno.io",
          "KyvernoValidatingPolicy",
          "ivpol.kyverno.io",
          "KyvernoImageValidatingPolicy",
          "gpol.kyverno.io",
          "KyvernoGeneratingPolicy",
          "mpol.kyverno.io",
          "KyvernoMutatingPolicy",
          "validatingadmissionpolicy.apiserver.io",
          "ValidatingAdmissionPolicy",
          "mutatingadmissionpolicy.apiserver.io",
          "MutatingAdmissionPolicy");

  /** The producer of what {@link #seed} makes of a per-resource report. */
  public static final String SEED_PRODUCER = "kyverno/report";

  private KyvernoMapping() {}

  /** What an intermediate report amounts to. */
  public sealed interface Outcome {
    /** A partial report ready for the aggregator. */
    record Ready(PartialReport partial) implements Outcome {}

    /**
     * A report about a resource whose uid it does not know yet (an admission request for an object
     * not yet created): it must be adopted first. {@code subject} has an empty uid.
     */
    record AwaitsAdoption(Subject subject) implements Outcome {}

    /** A report with neither results nor policy labels: it says nothing. */
    record Silent() implements Outcome {}
  }

  /**
   * The partial report {@code report} states.
   *
   * @throws InvalidReportException naming the label, annotation or result at fault
   */
  public static Outcome map(IntermediateReport report) {
    Map<String, String> labels = report.labels();
    Map<String, String> annotations = report.annotations();
    String version = required(labels, VERSION_LABEL);
    String kind = required(labels, KIND_LABEL);
    String group = labels.getOrDefault(GROUP_LABEL, "");
    String apiVersion = group.isEmpty() ? version : group + "/" + version;
    String namespace = first(annotations, labels, NAMESPACE_ANNOTATION).orElse(report.namespace());
    String name =
        first(annotations, labels, NAME_ANNOTATION)
            .orElseThrow(
                () ->
                    new InvalidReportException(
                        "metadata.annotations[" + NAME_ANNOTATION + "]", "is required"));
    String uid = Optional.ofNullable(labels.get(UID_LABEL)).or(report::owner).orElse("");
    Subject subject = Subject.of(apiVersion, kind, namespace, name, uid);
    if (!namespace.equals(report.namespace())) {
      throw new InvalidReportException(
          "metadata.annotations[" + NAMESPACE_ANNOTATION + "]",
          "names namespace '"
              + namespace
              + "' but the report lives in '"
              + report.namespace()
              + "'");
    }

    String scanned = annotations.get(LAST_SCAN_ANNOTATION);
    if (scanned != null) {
      rfc3339(scanned); // refused even on a report that says nothing
    }
    Set<CoverageKey> coverage = new TreeSet<>(coverage(labels, report.namespace()));
    if (coverage.isEmpty() && report.results().isEmpty()) {
      return new Outcome.Silent();
    }
    for (Result r : report.results()) {
      coverage.add(r.coverageKey());
    }
    if (uid.isEmpty()) {
      return new Outcome.AwaitsAdoption(subject);
    }
    String source = labels.get(SOURCE_LABEL);
    return new Outcome.Ready(
        PartialReport.builder()
            .producer(source == null || source.isEmpty() ? "kyverno" : "kyverno/" + source)
            .subject(subject)
            .subjectVersion(labels.getOrDefault(HASH_LABEL, ""))
            .coverage(coverage)
            .results(report.results())
            .observedAt(observedAt(report))
            .build());
  }

  /**
   * What a per-resource PolicyReport, ClusterPolicyReport, Report or ClusterReport already in the
   * cluster states, as partial reports: one per (source, policy) of its results, of producer {@link
   * #SEED_PRODUCER}, about the report's {@code scope}, covering exactly that (source, policy), with
   * those results, observed at the latest of their timestamps ({@link Timestamp#EPOCH} when none
   * has one, so that any real evaluation of the policy wins over it). A report without results
   * seeds nothing: it states no policy. Kyverno reports are never split; a register Tally split
   * across partitions (one resource's results of one policy beyond a partition's limits) seeds from
   * each partition its part, of which the merge keeps one.
   *
   * <p>Whoever may write PolicyReports in a namespace can write one that looks like Kyverno's, so a
   * seed speaks only for its own namespace and no later than it is read: a report whose scope is in
   * another namespace (or a namespaced report about a cluster-scoped resource, and the reverse) is
   * refused, and so is one with a result stamped beyond what {@code clock} accepts; the partial
   * reports are observed no later than {@code now} ({@link ClockRule#seed}), so any evaluation made
   * after the seeding outranks them.
   *
   * @param now the aggregator's clock as the report is read
   * @throws InvalidReportException naming {@code scope} when the report has none (it is not a
   *     per-resource report), {@code scope.uid} when its scope has no uid, {@code scope.namespace}
   *     when it is not the report's own namespace, or {@code results[i].timestamp} for a time
   *     beyond the clock rule
   */
  public static List<PartialReport> seed(AggregateReport report, ClockRule clock, Timestamp now) {
    InvalidReportException.requireNonNull("report", report);
    InvalidReportException.requireNonNull("clock", clock);
    InvalidReportException.requireNonNull("now", now);
    Subject subject =
        report
            .scope()
            .orElseThrow(
                () ->
                    new InvalidReportException(
                        "scope", "is required: only a per-resource report can seed"));
    if (subject.uid().isEmpty()) {
      throw new InvalidReportException("scope.uid", "is required");
    }
    if (!subject.namespace().equals(report.ref().namespace())) {
      throw new InvalidReportException(
          "scope.namespace",
          "is '"
              + subject.namespace()
              + "' but the report lives in '"
              + report.ref().namespace()
              + "': a report speaks only for its own namespace");
    }
    Map<CoverageKey, List<Result>> byKey = new TreeMap<>();
    for (Result r : report.results()) {
      byKey.computeIfAbsent(r.coverageKey(), k -> new ArrayList<>()).add(r);
    }
    List<PartialReport> out = new ArrayList<>(byKey.size());
    for (var e : byKey.entrySet()) {
      Timestamp latest = Timestamp.EPOCH;
      for (Result r : e.getValue()) {
        Timestamp t = r.timestamp().orElse(Timestamp.EPOCH);
        if (t.compareTo(latest) > 0) {
          latest = t;
        }
      }
      out.add(
          clock.seed(
              PartialReport.builder()
                  .producer(SEED_PRODUCER)
                  .subject(subject)
                  .coverage(Set.of(e.getKey()))
                  .results(e.getValue())
                  .observedAt(latest)
                  .build(),
              now));
    }
    return List.copyOf(out);
  }

  /** The (source, policy) pairs the policy labels name, in a report of {@code namespace}. */
  static Set<CoverageKey> coverage(Map<String, String> labels, String namespace) {
    Set<CoverageKey> keys = new TreeSet<>();
    for (String key : labels.keySet()) {
      int slash = key.indexOf('/');
      if (slash < 0) {
        continue;
      }
      String source = POLICY_SOURCES.get(key.substring(0, slash));
      String policy = key.substring(slash + 1);
      if (source == null || policy.isEmpty()) {
        continue;
      }
      // a namespaced Policy's results name it <namespace>/<name>; its label the bare name
      keys.add(
          CoverageKey.of(
              source,
              key.startsWith("pol.kyverno.io/") && !namespace.isEmpty()
                  ? namespace + "/" + policy
                  : policy));
    }
    return keys;
  }

  private static Timestamp observedAt(IntermediateReport report) {
    Timestamp latest = report.created().orElse(null);
    for (Result r : report.results()) {
      Timestamp t = r.timestamp().orElse(null);
      if (t != null && (latest == null || t.compareTo(latest) > 0)) {
        latest = t;
      }
    }
    String scanned = report.annotations().get(LAST_SCAN_ANNOTATION);
    if (scanned != null) {
      Timestamp t = rfc3339(scanned);
      if (latest == null || t.compareTo(latest) > 0) {
        latest = t;
      }
    }
    if (latest == null) {
      throw new InvalidReportException(
          "metadata.creationTimestamp",
          "is required when neither a result nor the "
              + LAST_SCAN_ANNOTATION
              + " annotation carries a time");
    }
    return latest;
  }

  private static Timestamp rfc3339(String value) {
    try {
      var instant = OffsetDateTime.parse(value).toInstant();
      return Timestamp.of(
          "metadata.annotations[" + LAST_SCAN_ANNOTATION + "]",
          instant.getEpochSecond(),
          instant.getNano());
    } catch (DateTimeParseException e) {
      throw new InvalidReportException(
          "metadata.annotations[" + LAST_SCAN_ANNOTATION + "]",
          "is not an RFC 3339 time: '" + value + "'");
    }
  }

  private static String required(Map<String, String> labels, String key) {
    String value = labels.get(key);
    if (value == null || value.isEmpty()) {
      throw new InvalidReportException("metadata.labels[" + key + "]", "is required");
    }
    return value;
  }

  private static Optional<String> first(
      Map<String, String> annotations, Map<String, String> labels, String key) {
    String value = annotations.get(key);
    if (value == null || value.isEmpty()) {
      value = labels.get(key);
    }
    return value == null || value.isEmpty() ? Optional.empty() : Optional.of(value);
  }
}
