package dev.tally.report.merge.gatekeeper;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.names.KubernetesNames;
import dev.tally.report.merge.publish.ClockRule;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What a run of Gatekeeper's audit states, as Tally partial reports: the rule of docs/DESIGN.md,
 * "Gatekeeper's audit runs". Pure: a {@linkplain AuditRun.Finished finished run}, the aggregates
 * that hold what earlier runs stated, the constraints the run is known to have audited and where
 * each resource's uid is now in; partial reports out, each about a uid.
 *
 * <p>An export names only violations, and Gatekeeper writes a run's finish line even when the run
 * stopped early (its constraints or a kind could not be listed). So what a run retracts is bounded
 * by what is known to have been audited: the <b>confirmed</b> constraints (those whose status names
 * this run as their audit, which Gatekeeper writes only once it audited them). A resource the run
 * names is stated with its violations, covering their constraints and the confirmed ones the
 * aggregates hold a result of for it; a resource held and not named has the confirmed constraints
 * it holds retracted; a resource held under a uid that is no longer its own (deleted, or recreated
 * under its name) has everything retracted. A constraint deleted is confirmed for every run by the
 * caller ({@link ConstraintAudits}), so its results leave as a fix's do.
 *
 * <ul>
 *   <li><b>Result</b>: source {@value #SOURCE}, policy the constraint's kind and name ({@code
 *       K8sRequiredLabels/must-have-owner}), rule the template's name (the constraint's kind in
 *       lower case, as Gatekeeper names templates), message as exported, timestamp the run's start,
 *       property {@value #ACTION} the constraint's enforcement action (and {@value #SCOPED_ACTIONS}
 *       the audit's actions of a {@code scoped} one, joined by commas); status {@code fail}, or
 *       {@code warn} where every action of the constraint only warns.
 *   <li><b>Subject</b>: the resource, with the uid {@code uidOf} finds for it (exports carry none);
 *       a resource is known by its group, kind, namespace and name, so a change of the version
 *       Gatekeeper exports is the same resource.
 *   <li><b>Producer</b> {@value #PRODUCER}; <b>observedAt</b> the run's start; <b>generation</b>
 *       the run's {@linkplain AuditRun.Finished#ordinal ordinal} (two runs of one second).
 * </ul>
 *
 * <p>A resource whose results cannot be stated (a policy name longer than a result allows) is
 * {@linkplain Statements#refused refused}: nothing is stated about it, neither its violations nor a
 * retraction. A run that started before the newest Gatekeeper result held is refused whole: an
 * older file read late would otherwise bring back what a newer run fixed.
 */
public final class GatekeeperMapping {
  /** The source of every result: Gatekeeper. */
  public static final String SOURCE = "gatekeeper";

  /** The producer of every partial report. */
  public static final String PRODUCER = "gatekeeper/audit";

  /**
   * The producer of a seed ({@link #seeds}): before {@value #PRODUCER} in the order of producers,
   * so that a run of the same second as the result a seed holds outranks it.
   */
  public static final String SEED_PRODUCER = "gatekeeper/aggregate";

  /** The property holding the constraint's enforcement action. */
  public static final String ACTION = "enforcementAction";

  /** The property holding a {@code scoped} constraint's audit actions. */
  public static final String SCOPED_ACTIONS = "enforcementActions";

  private GatekeeperMapping() {}

  /** The policy of a constraint's results: its kind and name, {@code K8sRequiredLabels/owner}. */
  public static String policy(String constraintKind, String constraintName) {
    return constraintKind + "/" + constraintName;
  }

  /**
   * What a run states: a partial report per uid it says something of, in a stable order.
   *
   * @param run a finished run
   * @param held the aggregates as they are before this run: what earlier runs stated ({@value
   *     #SOURCE}'s results only are looked at)
   * @param confirmed the {@linkplain #policy policies} of the constraints known to have been
   *     audited by this run
   * @param uidOf the uid a resource has now, found by its group, kind, namespace and name; empty
   *     when it does not exist. It answers from what is known; when that cannot be known for one
   *     resource, it throws {@link UnknownUid} and that resource is withheld (neither its
   *     violations nor a retraction of what is held under its identity; the others are stated); any
   *     other exception it throws is the caller's, and nothing of the run is stated
   */
  public static Statements statements(
      AuditRun.Finished run,
      Collection<AggregateReport> held,
      Set<String> confirmed,
      Function<Subject, Optional<String>> uidOf) {
    return statements(run, held, confirmed, uidOf, Omissions.EVERY);
  }

  /**
   * What a run states, a retraction of a resource that still exists waiting for a second run in a
   * row to omit it: Gatekeeper's audit stamps every constraint with a run and finishes its file
   * even when it could not list a kind of resource (docs/DESIGN.md, "Gatekeeper's audit runs"), so
   * one run's omission may be a kind it missed. A (resource, constraint) held, confirmed and not
   * named is retracted only when {@code previous} (what the run before omitted) holds it too;
   * either way it is among the {@link Statements#omitted} this run hands to the next. A resource
   * deleted or recreated loses everything at once (the lookup, not the audit, says so).
   *
   * @param previous what the previous run omitted; {@link Omissions#EVERY} to retract at once
   * @see #statements(AuditRun.Finished, Collection, Set, Function)
   */
  public static Statements statements(
      AuditRun.Finished run,
      Collection<AggregateReport> held,
      Set<String> confirmed,
      Function<Subject, Optional<String>> uidOf,
      Omissions previous) {
    InvalidReportException.requireNonNull("previous", previous);
    InvalidReportException.requireNonNull("run", run);
    InvalidReportException.requireNoNulls("held", held);
    InvalidReportException.requireNoNulls("confirmed", confirmed);
    InvalidReportException.requireNonNull("uidOf", uidOf);
    Held before = Held.of(held);
    if (before.newest.compareTo(run.started()) > 0) {
      return new Statements(
          List.of(),
          Omissions.NONE,
          List.of(
              new Refusal(
                  "run " + InvalidReportException.printable(run.id(), 100),
                  "it started before the newest result held, of "
                      + before.newest
                      + ": a newer run was applied")));
    }

    // the run's resources, each with its results in the file's order
    Map<Identity, Named> named = new TreeMap<>();
    Map<Identity, Refusal> refused = new TreeMap<>();
    List<Refusal> refusals = new ArrayList<>();
    List<ExportLine> violations = run.violations();
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
      Identity id = Identity.of(resource);
      if (refused.containsKey(id)) {
        continue;
      }
      try {
        Result result = result(v, run);
        named.computeIfAbsent(id, x -> new Named(resource, new ArrayList<>())).results.add(result);
      } catch (InvalidReportException e) {
        refused.put(id, new Refusal(resource.display(), "violations[" + i + "]." + e.getMessage()));
        named.remove(id);
      }
    }

    Set<CoverageKey> confirmedKeys = new HashSet<>();
    confirmed.forEach(p -> confirmedKeys.add(CoverageKey.of(SOURCE, p)));
    List<PartialReport> reports = new ArrayList<>();
    Set<String> omitted = new HashSet<>();
    Set<String> stated = new HashSet<>();
    for (var e : named.entrySet()) {
      Named n = e.getValue();
      Optional<String> uid;
      try {
        uid = uidOf.apply(n.resource);
      } catch (UnknownUid unknown) {
        // withheld: neither its violations nor a retraction of what its identity holds
        before
            .byIdentity
            .getOrDefault(e.getKey(), List.of())
            .forEach(h -> stated.add(h.subject.uid()));
        refusals.add(new Refusal(n.resource.display(), unknown.getMessage()));
        continue;
      }
      if (uid.isPresent() && !uid.get().isEmpty()) {
        Set<CoverageKey> coverage = new TreeSet<>();
        n.results.forEach(r -> coverage.add(r.coverageKey()));
        HeldSubject h = before.byUid.get(uid.get());
        if (h != null) {
          for (CoverageKey k : h.keys) {
            if (confirmedKeys.contains(k) && !coverage.contains(k)) {
              String pair = Omissions.pair(uid.get(), k);
              omitted.add(pair);
              if (previous.holds(pair)) {
                coverage.add(k); // omitted twice in a row: retracted
              }
            }
          }
        }
        reports.add(partial(run, n.resource.withUid(uid.get()), coverage, n.results));
        stated.add(uid.get());
      }
    }
    refused.forEach(
        (id, refusal) -> {
          // withheld: neither its violations nor a retraction
          before.byIdentity.getOrDefault(id, List.of()).forEach(h -> stated.add(h.subject.uid()));
          refusals.add(refusal);
        });
    // the rest held: each still its resource's (confirmed constraints retracted) or not (deleted,
    // or recreated under its name, as a uid the run named shows: everything retracted)
    for (HeldSubject h : before.byUid.values()) {
      if (stated.contains(h.subject.uid())) {
        continue;
      }
      Optional<String> now;
      try {
        now = uidOf.apply(h.subject);
      } catch (UnknownUid unknown) {
        refusals.add(new Refusal(h.subject.display(), unknown.getMessage()));
        continue; // withheld: nothing of it is retracted
      }
      Set<CoverageKey> retracted = new TreeSet<>();
      if (now.isPresent() && now.get().equals(h.subject.uid())) {
        for (CoverageKey k : h.keys) {
          if (confirmedKeys.contains(k)) {
            String pair = Omissions.pair(h.subject.uid(), k);
            omitted.add(pair);
            if (previous.holds(pair)) {
              retracted.add(k); // omitted twice in a row
            }
          }
        }
      } else {
        retracted.addAll(h.keys); // deleted, or recreated under its name
      }
      if (!retracted.isEmpty()) {
        reports.add(partial(run, h.subject, retracted, List.of()));
      }
    }
    return new Statements(reports, new Omissions(omitted, false), refusals);
  }

  /**
   * What the aggregates an aggregator wrote before state, as partial reports to seed a fresh
   * aggregator with, so that a restart with no run to read (the export's directory is emptied with
   * its Pod) keeps what earlier runs stated instead of writing it away, and the next run retracts
   * against it. One partial report per resource that {@value #SOURCE}'s results name with a uid, of
   * producer {@value #SEED_PRODUCER}, covering exactly the (source, policy) pairs of its results,
   * with those results (a result split over several aggregates is one), observed at the latest of
   * their timestamps and no later than {@code now} ({@link ClockRule#seed}).
   *
   * <p>Whoever may write PolicyReports in a namespace can write one that looks like Tally's, so a
   * result speaks only for its own namespace: one about a resource of another namespace (or a
   * namespaced report about a cluster-scoped resource, and the reverse) is refused, and so is a
   * resource with a result stamped after {@code now} (which would refuse every run started before
   * it as older than what is held); the others seed.
   *
   * @param owned the aggregates as the cluster holds them
   * @param clock the rule every partial report passes
   * @param now the aggregator's clock as they were read
   */
  public static Statements seeds(
      Collection<AggregateReport> owned, ClockRule clock, Timestamp now) {
    InvalidReportException.requireNoNulls("owned", owned);
    InvalidReportException.requireNonNull("clock", clock);
    InvalidReportException.requireNonNull("now", now);
    Map<String, Subject> subjects = new TreeMap<>();
    Map<String, Set<Result>> results = new TreeMap<>();
    Map<String, Refusal> refused = new TreeMap<>();
    for (AggregateReport aggregate : owned) {
      for (Result r : aggregate.results()) {
        if (!r.source().equals(SOURCE)) {
          continue;
        }
        List<Subject> resources =
            r.resources().isEmpty() ? aggregate.scope().stream().toList() : r.resources();
        for (Subject s : resources) {
          if (s.uid().isEmpty()) {
            continue;
          }
          String key = s.namespace() + "/" + s.uid();
          if (!s.namespace().equals(aggregate.ref().namespace())) {
            refused.put(
                key,
                new Refusal(
                    s.display(),
                    "a result in "
                        + aggregate.ref()
                        + " names it: a report speaks only for its own namespace"));
            continue;
          }
          subjects.putIfAbsent(key, s);
          results
              .computeIfAbsent(key, k -> new java.util.LinkedHashSet<>())
              .add(r.toBuilder().resources(List.of()).build());
        }
      }
    }
    List<PartialReport> seeds = new ArrayList<>();
    for (var e : results.entrySet()) {
      if (refused.containsKey(e.getKey())) {
        continue;
      }
      Set<CoverageKey> coverage = new TreeSet<>();
      Timestamp latest = Timestamp.EPOCH;
      for (Result r : e.getValue()) {
        coverage.add(r.coverageKey());
        Timestamp t = r.timestamp().orElse(Timestamp.EPOCH);
        if (t.compareTo(latest) > 0) {
          latest = t;
        }
      }
      Subject subject = subjects.get(e.getKey());
      if (latest.compareTo(now) > 0) {
        // no run read so far started later than now: such a result would refuse every run read
        // before it (a run older than the newest result held) for as long as the clock allows
        refused.put(
            e.getKey(),
            new Refusal(
                subject.display(),
                "a result is stamped " + latest + ", after the aggregator's clock (" + now + ")"));
        continue;
      }
      try {
        seeds.add(
            clock.seed(
                PartialReport.builder()
                    .producer(SEED_PRODUCER)
                    .subject(subject)
                    .coverage(coverage)
                    .results(List.copyOf(e.getValue()))
                    .observedAt(latest)
                    .build(),
                now));
      } catch (InvalidReportException ex) {
        refused.put(e.getKey(), new Refusal(subject.display(), ex.getMessage()));
      }
    }
    return new Statements(seeds, Omissions.NONE, List.copyOf(refused.values()));
  }

  /**
   * What a run states.
   *
   * @param reports a partial report per uid the run states something of
   * @param omitted the (resource, constraint) pairs held, confirmed and not named, of resources
   *     that still exist: what the next run's retractions wait for
   * @param refused the resources about which nothing is stated, and why; or the whole run
   */
  public record Statements(List<PartialReport> reports, Omissions omitted, List<Refusal> refused) {
    public Statements {
      reports = List.copyOf(reports);
      InvalidReportException.requireNonNull("omitted", omitted);
      refused = List.copyOf(refused);
    }
  }

  /**
   * The (resource uid, constraint) pairs a run omitted: held, confirmed, not named, the resource
   * still there.
   *
   * @param pairs each pair as {@link #pair} writes it
   * @param every whether every pair counts as omitted (retractions at once)
   */
  public record Omissions(Set<String> pairs, boolean every) {
    /** None omitted: every retraction of a resource that still exists waits for the next run. */
    public static final Omissions NONE = new Omissions(Set.of(), false);

    /** Every pair counts as omitted before: retractions apply at once. */
    public static final Omissions EVERY = new Omissions(Set.of(), true);

    public Omissions {
      pairs = Set.copyOf(InvalidReportException.requireNoNulls("pairs", pairs));
    }

    /** What this and {@code more} hold. */
    public Omissions and(Omissions more) {
      InvalidReportException.requireNonNull("more", more);
      Set<String> both = new HashSet<>(pairs);
      both.addAll(more.pairs);
      return new Omissions(both, every || more.every);
    }

    boolean holds(String pair) {
      return every || pairs.contains(pair);
    }

    static String pair(String uid, CoverageKey key) {
      return uid + "\n" + key.source() + "\n" + key.policy();
    }
  }

  /**
   * Thrown by a {@code uidOf} that cannot know one resource's uid now (a lookup refused or failed,
   * a kind it may not read): that resource is withheld, the others stated.
   */
  public static final class UnknownUid extends RuntimeException {
    public UnknownUid(String reason) {
      super(reason, null, false, false);
    }
  }

  /**
   * A resource about which a run states nothing, and why.
   *
   * @param resource the resource, as a log line shows it
   * @param reason the violation and field at fault, and why
   */
  public record Refusal(String resource, String reason) {}

  /** A resource as the run names it, without uid, and its results. */
  private record Named(Subject resource, List<Result> results) {}

  /** A resource the aggregates hold Gatekeeper results of, and the keys of those results. */
  private record HeldSubject(Subject subject, Set<CoverageKey> keys) {}

  /** What the aggregates hold of Gatekeeper's: by uid, by identity, and the newest timestamp. */
  private record Held(
      Map<String, HeldSubject> byUid,
      Map<Identity, List<HeldSubject>> byIdentity,
      Timestamp newest) {
    static Held of(Collection<AggregateReport> aggregates) {
      Map<String, HeldSubject> byUid = new TreeMap<>();
      Timestamp newest = Timestamp.EPOCH;
      for (AggregateReport aggregate : aggregates) {
        for (Result r : aggregate.results()) {
          if (!r.source().equals(SOURCE)) {
            continue;
          }
          if (r.timestamp().isPresent() && r.timestamp().get().compareTo(newest) > 0) {
            newest = r.timestamp().get();
          }
          List<Subject> resources =
              r.resources().isEmpty() ? aggregate.scope().stream().toList() : r.resources();
          for (Subject s : resources) {
            if (!s.uid().isEmpty()) {
              byUid
                  .computeIfAbsent(s.uid(), u -> new HeldSubject(s, new TreeSet<>()))
                  .keys
                  .add(r.coverageKey());
            }
          }
        }
      }
      Map<Identity, List<HeldSubject>> byIdentity = new TreeMap<>();
      byUid
          .values()
          .forEach(
              h ->
                  byIdentity
                      .computeIfAbsent(Identity.of(h.subject), x -> new ArrayList<>())
                      .add(h));
      return new Held(byUid, byIdentity, newest);
    }
  }

  /** A resource as Gatekeeper knows it across versions: group, kind, namespace, name. */
  private record Identity(String group, String kind, String namespace, String name)
      implements Comparable<Identity> {
    static Identity of(Subject s) {
      return new Identity(
          KubernetesNames.apiGroup(s.apiVersion()), s.kind(), s.namespace(), s.name());
    }

    @Override
    public int compareTo(Identity o) {
      int c = namespace.compareTo(o.namespace);
      if (c == 0) {
        c = kind.compareTo(o.kind);
      }
      if (c == 0) {
        c = name.compareTo(o.name);
      }
      return c != 0 ? c : group.compareTo(o.group);
    }
  }

  /**
   * The resource a violation names, without uid (exports carry none).
   *
   * @throws InvalidReportException naming the field when it is not a valid subject
   */
  public static Subject resource(ExportLine v) {
    String apiVersion =
        v.resourceGroup().isEmpty()
            ? v.resourceApiVersion()
            : v.resourceGroup() + "/" + v.resourceApiVersion();
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
        .policy(policy(v.constraintKind(), v.constraintName()))
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

  private static PartialReport partial(
      AuditRun.Finished run, Subject subject, Set<CoverageKey> coverage, List<Result> results) {
    return PartialReport.builder()
        .producer(PRODUCER)
        .subject(subject)
        .coverage(coverage)
        .results(results)
        .observedAt(run.started())
        .generation(run.ordinal())
        .build();
  }
}
