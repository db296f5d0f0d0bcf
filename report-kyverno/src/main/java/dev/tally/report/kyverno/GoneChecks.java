package dev.tally.report.kyverno;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.input.ResourceLookups;
import dev.tally.report.fabric8.internal.LogFields;
import dev.tally.report.fabric8.internal.RateLimitedLog;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which resources are gone, when Kyverno's intermediate reports are deleted after merging and the
 * per-resource reports are the state: a report known to be in the cluster that vanished (garbage
 * collection) is about a resource that may be gone; that resource is read, by name, metadata only,
 * and is gone when it is not there or has another uid (many of one namespace and kind at once: one
 * LIST of their kind there). A failed read is not "gone": it is asked again after a backoff. Split
 * out of {@link IntermediateReports}, which keeps the reports' own lifecycle (merged, deleted,
 * adopted).
 */
final class GoneChecks {
  /** A gone-check that failed {@code failures} times in a row, tried again at {@code nextTry}. */
  private record Recheck(int failures, Instant nextTry) {}

  private final ResourceLookups lookups;
  private final KyvernoInput settings;
  private final TallyMetrics metrics;
  private final Clock clock;
  private final RateLimitedLog warnings;

  /** Per-resource reports known to be in the cluster, with the resource each is about. */
  private final Map<ReportRef, Subject> published = new HashMap<>();

  /** Resources whose report vanished and whose gone-check failed: asked again after a backoff. */
  private final Map<Subject, Recheck> recheck = new LinkedHashMap<>();

  GoneChecks(
      ResourceLookups lookups,
      KyvernoInput settings,
      TallyMetrics metrics,
      Clock clock,
      RateLimitedLog warnings) {
    this.lookups = lookups;
    this.settings = settings;
    this.metrics = metrics;
    this.clock = clock;
    this.warnings = warnings;
  }

  /** The term ended. */
  void clear() {
    published.clear();
    recheck.clear();
  }

  /**
   * The owned per-resource reports the cluster holds now: the resources whose report was known to
   * exist, is no longer there, and which are gone themselves or have another uid.
   */
  List<Subject> check(List<AggregateReport> owned) {
    Set<ReportRef> present = new HashSet<>();
    for (AggregateReport o : owned) {
      present.add(o.ref());
    }
    List<Subject> gone = new ArrayList<>();
    Set<Subject> toCheck = new java.util.LinkedHashSet<>();
    for (var e : published.entrySet()) {
      if (!present.contains(e.getKey())) {
        toCheck.add(e.getValue());
      }
    }
    Set<Subject> listed = new HashSet<>();
    for (AggregateReport o : owned) {
      o.scope().ifPresent(listed::add);
    }
    Instant now = clock.instant();
    for (var r : List.copyOf(recheck.entrySet())) {
      if (listed.contains(r.getKey())) {
        recheck.remove(r.getKey()); // its report is back: nothing to ask
      } else if (!now.isBefore(r.getValue().nextTry())) {
        toCheck.add(r.getKey());
      }
    }
    for (var e : lookUp(toCheck).entrySet()) {
      Subject s = e.getKey();
      ResourceLookups.Outcome outcome = e.getValue();
      if (outcome instanceof ResourceLookups.Outcome.Failed failed) {
        Recheck had = recheck.get(s);
        int failures = had == null ? 1 : had.failures() + 1;
        Duration wait = settings.lookupBackoff(failures);
        recheck.put(s, new Recheck(failures, now.plus(wait)));
        metrics.resourceLookupFailed(TallyMetrics.Lookup.GONE_CHECK);
        warnings.warn(
            "gone-check " + failed.resource(),
            "is {} {} gone? could not read it: {}; its results stay, asked again in {}"
                + " (failure {} in a row)",
            failed.resource(),
            LogFields.where(s),
            failed.cause(),
            wait,
            failures);
        continue;
      }
      recheck.remove(s);
      if (outcome instanceof ResourceLookups.Outcome.Skipped skipped) {
        metrics.resourceLookupSkipped(TallyMetrics.Lookup.GONE_CHECK);
        warnings.warn(
            "gone-check skipped " + skipped.resource(),
            "the report about {} {} vanished, but its kind {} is not among the adoption kinds"
                + " {}: not looked up, its results stay",
            skipped.resource(),
            LogFields.where(s),
            skipped.resource(),
            settings.adoptionKinds().stream().sorted().toList());
      } else if (!(outcome instanceof ResourceLookups.Outcome.Found found
          && found.uid().equals(s.uid()))) {
        gone.add(s);
      }
    }
    published.clear();
    for (AggregateReport o : owned) {
      o.scope().ifPresent(s -> published.put(o.ref(), s));
    }
    return gone;
  }

  /**
   * Subjects of one namespace and kind to check at once past which one LIST of their kind in the
   * namespace answers them all, instead of a GET each.
   */
  static final int LIST_FROM = 8;

  /**
   * What the server says about each of {@code subjects}: a GET each, but one LIST for {@value
   * #LIST_FROM} or more of one namespace, apiVersion and kind. Before, a tenant deleting its
   * namespace's reports with one delete-collection (or a Deployment scaled down) cost one GET per
   * report on the aggregator thread, at every resync the reports were deleted again.
   */
  private Map<Subject, ResourceLookups.Outcome> lookUp(Set<Subject> subjects) {
    Map<List<String>, List<Subject>> byCollection = new LinkedHashMap<>();
    for (Subject s : subjects) {
      byCollection
          .computeIfAbsent(List.of(s.namespace(), s.apiVersion(), s.kind()), k -> new ArrayList<>())
          .add(s);
    }
    Map<Subject, ResourceLookups.Outcome> out = new LinkedHashMap<>();
    for (List<Subject> group : byCollection.values()) {
      if (group.size() >= LIST_FROM) {
        out.putAll(lookups.uidsOf(group));
      } else {
        group.forEach(s -> out.put(s, lookups.uidOf(s, null)));
      }
    }
    return out;
  }

  /** The reports {@code refs} were read again: those the cluster holds are {@code observed}. */
  void reread(Collection<ReportRef> refs, List<AggregateReport> observed) {
    published.keySet().removeAll(refs);
    for (AggregateReport o : observed) {
      o.scope().ifPresent(s -> published.put(o.ref(), s));
    }
  }

  /** {@code changes} were all written: the reports they created or deleted are known. */
  void written(ChangeSet changes) {
    for (Change c : changes.changes()) {
      if (c instanceof Change.Create create) {
        create.report().scope().ifPresent(s -> published.put(create.report().ref(), s));
      } else if (c instanceof Change.Update update) {
        update.report().scope().ifPresent(s -> published.put(update.report().ref(), s));
      } else if (c instanceof Change.Delete delete) {
        published.remove(delete.ref());
      }
    }
  }
}
