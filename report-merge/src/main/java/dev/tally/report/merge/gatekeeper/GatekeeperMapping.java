package dev.tally.report.merge.gatekeeper;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a run of Gatekeeper's audit states, as Tally partial reports: the rule of docs/DESIGN.md,
 * "Gatekeeper's audit". Pure: a {@linkplain AuditRun.Finished finished run} and the aggregates that
 * hold what earlier runs stated in, partial reports out.
 *
 * <p>A finished run audited every resource against every constraint, but its export names only the
 * violations. So a run states, for each resource it names, its violations, and covers for it every
 * constraint the run found violated anywhere plus every constraint the aggregates hold a result of
 * for that resource; and for each resource the aggregates hold a result of and the run does not
 * name, it covers those constraints with no result. A violation fixed, a constraint deleted, a
 * resource deleted or no longer matched: each is retracted by the first run that finishes after it.
 *
 * <ul>
 *   <li><b>Result</b>: source {@value #SOURCE}, policy the constraint's kind and name ({@code
 *       K8sRequiredLabels/must-have-owner}), rule the template's name (the constraint's kind in
 *       lower case, as Gatekeeper names templates), message as exported, timestamp the run's start,
 *       property {@value #ACTION} the constraint's enforcement action (and {@value #SCOPED_ACTIONS}
 *       the audit's actions of a {@code scoped} one, joined by commas); status {@code fail}, or
 *       {@code warn} where every action of the constraint only warns ({@code warn}, or {@code
 *       scoped} with only {@code warn}).
 *   <li><b>Subject</b>: the resource (apiVersion from {@code resourceGroup} and {@code
 *       resourceAPIVersion}). Exports carry no uid: a resource the run names is stated with an
 *       empty uid, for the adapter to adopt; one only the aggregates hold keeps the uid they hold.
 *   <li><b>Producer</b> {@value #PRODUCER}; <b>observedAt</b> the run's start.
 * </ul>
 *
 * <p>A resource whose results cannot be stated (a policy name longer than a result allows) is
 * {@linkplain Statements#refused refused}: nothing is stated about it, neither its violations nor a
 * retraction, and every other resource is stated.
 */
public final class GatekeeperMapping {
  /** The source of every result: Gatekeeper. */
  public static final String SOURCE = "gatekeeper";

  /** The producer of every partial report. */
  public static final String PRODUCER = "gatekeeper/audit";

  /** The property holding the constraint's enforcement action. */
  public static final String ACTION = "enforcementAction";

  /** The property holding a {@code scoped} constraint's audit actions. */
  public static final String SCOPED_ACTIONS = "enforcementActions";

  private GatekeeperMapping() {}

  /**
   * What a run states, with a partial report per resource it names or {@code held} holds a result
   * of ({@value #SOURCE}'s results only; others' are not looked at), in a stable order.
   *
   * @param run a finished run
   * @param held the aggregates as they are before this run: what earlier runs stated
   */
  public static Statements statements(AuditRun.Finished run, Collection<AggregateReport> held) {
    InvalidReportException.requireNonNull("run", run);
    InvalidReportException.requireNoNulls("held", held);
    // the run's resources, by identity (no uid), each with its results in the file's order
    Map<Subject, List<Result>> named = new TreeMap<>(GatekeeperMapping::compareSubjects);
    Map<Subject, String> refused = new TreeMap<>(GatekeeperMapping::compareSubjects);
    Set<CoverageKey> found = new TreeSet<>();
    List<ExportLine> violations = run.violations();
    List<Refusal> refusals = new ArrayList<>();
    for (int i = 0; i < violations.size(); i++) {
      ExportLine v = violations.get(i);
      Subject resource;
      try {
        resource = resource(v);
      } catch (InvalidReportException e) {
        // no resource held has this identity (every one held is valid): nothing to withhold
        refusals.add(new Refusal(display(v), "violations[" + i + "]." + e.getMessage()));
        continue;
      }
      if (refused.containsKey(resource)) {
        continue;
      }
      try {
        Result result = result(v, run);
        found.add(result.coverageKey());
        named.computeIfAbsent(resource, r -> new ArrayList<>()).add(result);
      } catch (InvalidReportException e) {
        refused.put(resource, "violations[" + i + "]." + e.getMessage());
        named.remove(resource);
      }
    }
    Map<Subject, Set<CoverageKey>> heldKeys = heldKeys(held);
    // the same keys by identity, so that a resource named keeps covering what it held under
    // any uid
    Map<Subject, Set<CoverageKey>> heldByIdentity =
        new TreeMap<>(GatekeeperMapping::compareSubjects);
    heldKeys.forEach(
        (subject, keys) ->
            heldByIdentity.computeIfAbsent(subject, x -> new TreeSet<>()).addAll(keys));

    List<PartialReport> reports = new ArrayList<>();
    for (Map.Entry<Subject, List<Result>> e : named.entrySet()) {
      Set<CoverageKey> coverage = new TreeSet<>(found);
      coverage.addAll(heldByIdentity.getOrDefault(e.getKey(), Set.of()));
      reports.add(partial(run, e.getKey(), coverage, e.getValue()));
    }
    heldKeys.forEach(
        (subject, keys) -> {
          if (!named.containsKey(subject) && !refused.containsKey(subject)) {
            reports.add(partial(run, subject, keys, List.of()));
          }
        });
    refused.forEach((subject, reason) -> refusals.add(new Refusal(subject.display(), reason)));
    return new Statements(reports, refusals);
  }

  /**
   * What a run states.
   *
   * @param reports a partial report per resource the run names (uid empty, to adopt) or the
   *     aggregates held (uid kept)
   * @param refused the resources about which nothing is stated, and why
   */
  public record Statements(List<PartialReport> reports, List<Refusal> refused) {
    public Statements {
      reports = List.copyOf(reports);
      refused = List.copyOf(refused);
    }
  }

  /**
   * A resource about which a run states nothing, and why.
   *
   * @param resource the resource, as a log line shows it
   * @param reason the violation and field at fault, and why
   */
  public record Refusal(String resource, String reason) {}

  private static Subject resource(ExportLine v) {
    String apiVersion =
        v.resourceGroup().isEmpty()
            ? v.resourceVersion()
            : v.resourceGroup() + "/" + v.resourceVersion();
    return Subject.of(apiVersion, v.resourceKind(), v.resourceNamespace(), v.resourceName(), "");
  }

  private static String display(ExportLine v) {
    return InvalidReportException.printable(
        v.resourceKind()
            + " "
            + (v.resourceNamespace().isEmpty() ? "" : v.resourceNamespace() + "/")
            + v.resourceName(),
        600);
  }

  private static Result result(ExportLine v, AuditRun.Finished run) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(ACTION, v.enforcementAction());
    if (!v.enforcementActions().isEmpty()) {
      properties.put(SCOPED_ACTIONS, String.join(",", v.enforcementActions()));
    }
    return Result.builder()
        .source(SOURCE)
        .policy(v.constraintKind() + "/" + v.constraintName())
        .rule(v.constraintKind().toLowerCase(Locale.ROOT))
        .status(onlyWarns(v) ? ResultStatus.WARN : ResultStatus.FAIL)
        .message(v.message())
        .properties(properties)
        .timestamp(run.started())
        .build();
  }

  private static boolean onlyWarns(ExportLine v) {
    return switch (v.enforcementAction()) {
      case "warn" -> true;
      case "scoped" ->
          !v.enforcementActions().isEmpty()
              && v.enforcementActions().stream().allMatch("warn"::equals);
      default -> false;
    };
  }

  /** Per resource held (uid kept), the keys of its Gatekeeper results. */
  private static Map<Subject, Set<CoverageKey>> heldKeys(Collection<AggregateReport> held) {
    Map<Subject, Set<CoverageKey>> keys = new TreeMap<>(GatekeeperMapping::compareWithUid);
    for (AggregateReport aggregate : held) {
      for (Result r : aggregate.results()) {
        if (!r.source().equals(SOURCE)) {
          continue;
        }
        List<Subject> resources =
            r.resources().isEmpty() ? aggregate.scope().stream().toList() : r.resources();
        for (Subject s : resources) {
          keys.computeIfAbsent(s, x -> new TreeSet<>()).add(r.coverageKey());
        }
      }
    }
    return keys;
  }

  private static PartialReport partial(
      AuditRun.Finished run, Subject subject, Set<CoverageKey> coverage, List<Result> results) {
    return PartialReport.builder()
        .producer(PRODUCER)
        .subject(subject)
        .coverage(coverage)
        .results(results)
        .observedAt(run.started())
        .build();
  }

  /** By identity: apiVersion, kind, namespace, name; the uid is not compared. */
  private static int compareSubjects(Subject a, Subject b) {
    int c = a.namespace().compareTo(b.namespace());
    if (c == 0) {
      c = a.kind().compareTo(b.kind());
    }
    if (c == 0) {
      c = a.name().compareTo(b.name());
    }
    return c != 0 ? c : a.apiVersion().compareTo(b.apiVersion());
  }

  private static int compareWithUid(Subject a, Subject b) {
    int c = compareSubjects(a, b);
    return c != 0 ? c : a.uid().compareTo(b.uid());
  }
}
