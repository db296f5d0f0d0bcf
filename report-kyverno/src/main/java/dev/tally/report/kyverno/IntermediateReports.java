package dev.tally.report.kyverno;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.client.Requests;
import dev.tally.report.fabric8.input.InputContext;
import dev.tally.report.fabric8.input.ResourceLookups;
import dev.tally.report.fabric8.input.Retirement;
import dev.tally.report.fabric8.input.SubjectAdoption;
import dev.tally.report.fabric8.internal.LogFields;
import dev.tally.report.fabric8.internal.RateLimitedLog;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.merge.kyverno.KyvernoMapping;
import dev.tally.report.merge.publish.ClockRule;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kyverno input's two services ({@link KyvernoInput#services}): adoption of admission reports
 * about a resource with no uid yet and, when reports are deleted after merging, their retirement:
 * which merged reports to delete once what they said is written, the seeds of a term, and which
 * resources are gone (their per-resource report vanished and so did they). One object, so that the
 * reports held either way count against the input's caps together. It moves objects and asks the
 * cluster; what a report states and what a seed is are report-merge's ({@code KyvernoMapping}).
 * Confined to the aggregator thread.
 */
final class IntermediateReports implements SubjectAdoption, Retirement {
  private static final Logger LOG = LoggerFactory.getLogger(IntermediateReports.class);

  /** One intermediate report object, at the version read. */
  private record Read(String kind, String namespace, String name, String resourceVersion) {
    static Read of(HasMetadata object) {
      var meta = object.getMetadata();
      return new Read(
          object.getKind(),
          Objects.requireNonNullElse(meta.getNamespace(), ""),
          meta.getName(),
          Objects.requireNonNullElse(meta.getResourceVersion(), ""));
    }
  }

  /**
   * An admission report waiting for its resource, first seen at {@code since}; after {@code
   * failures} failed lookups in a row it is looked up again at {@code nextTry}; {@code skipNoted}
   * once its kind was found outside the adoption kinds (logged and counted once).
   */
  private record Waiting(
      KyvernoReportResource object,
      Subject subject,
      Instant since,
      int failures,
      Instant nextTry,
      boolean skipNoted) {
    Waiting(KyvernoReportResource object, Subject subject, Instant since) {
      this(object, subject, since, 0, Instant.MIN, false);
    }
  }

  private final KyvernoInput settings;
  private final TallyMetrics metrics;
  private final Clock clock;
  private final ClockRule clockRule;
  private final Supplier<Timestamp> seedTime;
  private final ResourceLookups lookups;
  private final RateLimitedLog warnings;

  /** Merged reports, by ledger key, to delete after the next complete write. */
  private final Map<String, Read> merged = new LinkedHashMap<>();

  /** How many of {@link #merged} each namespace holds, for its cap. */
  private final Map<String, Integer> mergedByNamespace = new HashMap<>();

  /** Reports awaiting adoption, by ledger key. */
  private final Map<String, Waiting> waiting = new LinkedHashMap<>();

  /** How many of {@link #waiting} each namespace holds, for its cap. */
  private final Map<String, Integer> awaitingByNamespace = new HashMap<>();

  /** The requests on Kyverno's reports: deletes and adoption patches. */
  private final ReportRequests requests;

  /** Which resources are gone, when their per-resource report vanished. */
  private final GoneChecks goneChecks;

  private boolean seeded;

  IntermediateReports(KyvernoInput settings, InputContext context) {
    this.settings = settings;
    this.metrics = context.metrics();
    this.clock = context.clock();
    this.clockRule = context.clockRule();
    this.seedTime = context.now();
    Requests calls = context.calls();
    KubernetesClient client = context.client();
    this.lookups = new ResourceLookups(client, calls, settings.adoptionKinds());
    this.warnings = new RateLimitedLog(LOG, clock, Duration.ofMinutes(1));
    this.requests = new ReportRequests(client, calls);
    this.goneChecks = new GoneChecks(lookups, settings, metrics, clock, warnings);
  }

  /** Whether merged reports are deleted (and the aggregates are the state). */
  boolean deletesAfterMerge() {
    return settings.lifecycle() == KyvernoInput.Lifecycle.DELETE_AFTER_MERGE;
  }

  @Override
  public Duration retryEvery() {
    return settings.adoptionRetry();
  }

  /** The term ended: the next one seeds afresh and knows nothing of this one's objects. */
  @Override
  public void termEnded() {
    merged.clear();
    mergedByNamespace.clear();
    waiting.clear();
    awaitingByNamespace.clear();
    goneChecks.clear();
    lookups.clear();
    seeded = false;
    report();
  }

  /** {@code object}, known as {@code key}, was applied (or stated nothing). */
  @Override
  public void merged(String key, HasMetadata object) {
    unwait(key);
    if (deletesAfterMerge()) {
      Read read = Read.of(object);
      if (merged.put(key, read) == null) {
        mergedByNamespace.merge(read.namespace(), 1, Integer::sum);
      }
      report();
    }
  }

  /** {@code key} is no longer merged and awaiting its delete. */
  private boolean unmerge(String key) {
    Read read = merged.remove(key);
    if (read == null) {
      return false;
    }
    mergedByNamespace.computeIfPresent(read.namespace(), (ns, n) -> n == 1 ? null : n - 1);
    return true;
  }

  /**
   * Whether {@code object}, known as {@code key}, may be merged: when reports are deleted after
   * merging, each merged report is remembered until its delete, and at a cap no more is merged
   * until deletes catch up (back-pressure: the report stays in the cluster).
   *
   * @throws CapacityExceededException when it is not merged and awaiting its delete already and its
   *     namespace, or all namespaces, hold as many as {@link KyvernoInput} allows
   */
  @Override
  public void beforeMerge(String key, HasMetadata object) {
    if (!deletesAfterMerge() || merged.containsKey(key)) {
      return;
    }
    String namespace = Objects.requireNonNullElse(object.getMetadata().getNamespace(), "");
    NamespaceCaps.check(
        namespace,
        mergedByNamespace.getOrDefault(namespace, 0),
        settings.maxAwaitingDeletePerNamespace(),
        "maxAwaitingDeletePerNamespace",
        merged.size(),
        mergedByNamespace.size(),
        settings.maxAwaitingDelete(),
        "maxAwaitingDelete",
        "merged reports awaiting their delete",
        "; not merged until deletes catch up");
  }

  /**
   * {@code object} is about {@code subject}, whose uid is not known yet.
   *
   * @throws CapacityExceededException when it is not awaiting already and its namespace, or all
   *     namespaces, hold as many reports awaiting adoption as {@link KyvernoInput} allows; nothing
   *     is held for it then
   */
  @Override
  public void await(String key, HasMetadata object, Subject subject) {
    if (!waiting.containsKey(key)) {
      checkAwaitingCaps(Objects.requireNonNullElse(object.getMetadata().getNamespace(), ""));
    }
    // the report was read before it came here: its creation time is valid
    Instant since =
        KyvernoCodec.created(object.getMetadata())
            .map(t -> Instant.ofEpochSecond(t.seconds(), t.nanos()))
            .orElse(clock.instant());
    Waiting had = waiting.get(key);
    hold(key, new Waiting(KyvernoCodec.typed(object), subject, had == null ? since : had.since()));
    report();
  }

  private void hold(String key, Waiting w) {
    if (waiting.put(key, w) == null) {
      awaitingByNamespace.merge(namespaceOf(w), 1, Integer::sum);
    }
  }

  @Override
  public void release(String key) {
    if (unwait(key)) {
      report();
    }
  }

  /** Whether {@code key} was awaiting adoption; it no longer is. */
  private boolean unwait(String key) {
    Waiting w = waiting.remove(key);
    if (w == null) {
      return false;
    }
    awaitingByNamespace.computeIfPresent(namespaceOf(w), (ns, n) -> n == 1 ? null : n - 1);
    return true;
  }

  private static String namespaceOf(Waiting w) {
    return Objects.requireNonNullElse(w.object().getMetadata().getNamespace(), "");
  }

  private void checkAwaitingCaps(String namespace) {
    NamespaceCaps.check(
        namespace,
        awaitingByNamespace.getOrDefault(namespace, 0),
        settings.maxAwaitingAdoptionPerNamespace(),
        "maxAwaitingAdoptionPerNamespace",
        waiting.size(),
        awaitingByNamespace.size(),
        settings.maxAwaitingAdoption(),
        "maxAwaitingAdoption",
        "reports awaiting adoption",
        "");
  }

  /** The object known as {@code key} is gone from the cluster. */
  @Override
  public void gone(String key) {
    if (unmerge(key) | unwait(key)) {
      report();
    }
  }

  /**
   * Looks for the resource of every report awaiting adoption. With {@link
   * KyvernoInput.Lifecycle#KEEP} a found resource's uid and owner reference are written onto the
   * report, as Kyverno does (its update event then delivers it); otherwise {@code adopted} gets the
   * report with the uid set, to apply it without writing it. A report whose resource has not
   * appeared within the grace is deleted.
   */
  @Override
  public void retry(Consumer<HasMetadata> adopted) {
    Instant now = clock.instant();
    for (var e : List.copyOf(waiting.entrySet())) {
      String key = e.getKey();
      Waiting w = e.getValue();
      if (now.isBefore(w.nextTry())) {
        continue; // backing off after a failed lookup
      }
      ResourceLookups.Outcome outcome =
          lookups.uidOf(w.subject(), ReportRequests.plural(w.object()));
      Optional<String> uid =
          outcome instanceof ResourceLookups.Outcome.Found found
              ? Optional.of(found.uid())
              : Optional.empty();
      if (outcome instanceof ResourceLookups.Outcome.Failed failed) {
        // not "not found": the grace does not run out on it; asked again after a backoff
        int failures = w.failures() + 1;
        Duration wait = settings.lookupBackoff(failures);
        waiting.put(
            key,
            new Waiting(
                w.object(), w.subject(), w.since(), failures, now.plus(wait), w.skipNoted()));
        metrics.resourceLookupFailed(TallyMetrics.Lookup.ADOPTION);
        warnings.warn(
            "adoption " + failed.resource(),
            "adoption of {}: could not read {} {}: {}; not taken for absent, asked again in {}"
                + " (failure {} in a row)",
            key,
            failed.resource(),
            LogFields.where(w.subject()),
            failed.cause(),
            wait,
            failures);
        continue;
      }
      if (w.failures() > 0) {
        // an answer at last: the next failure backs off from the start again
        w = new Waiting(w.object(), w.subject(), w.since(), 0, Instant.MIN, w.skipNoted());
        waiting.put(key, w);
      }
      if (outcome instanceof ResourceLookups.Outcome.Skipped skipped && !w.skipNoted()) {
        w = new Waiting(w.object(), w.subject(), w.since(), 0, Instant.MIN, true);
        waiting.put(key, w);
        metrics.resourceLookupSkipped(TallyMetrics.Lookup.ADOPTION);
        warnings.warn(
            "adoption skipped " + skipped.resource(),
            "{} is about {} {}, whose kind {} is not among the adoption kinds {}: it is not"
                + " looked up, and is deleted after the adoption grace ({}) unless its uid"
                + " arrives",
            key,
            InvalidReportException.printable(w.subject().kind(), 300),
            LogFields.where(w.subject()),
            skipped.resource(),
            settings.adoptionKinds().stream().sorted().toList(),
            settings.adoptionGrace());
      }
      if (uid.isPresent()) {
        unwait(key);
        if (deletesAfterMerge()) {
          adopted.accept(ReportRequests.withUid(w.object(), uid.get(), w.subject()));
        } else {
          requests.adopt(key, w.object(), uid.get(), w.subject());
        }
      } else if (Duration.between(w.since(), now).compareTo(settings.adoptionGrace()) > 0) {
        unwait(key);
        LogFields.about(LOG.atWarn(), w.object())
            .addKeyValue("subject", LogFields.where(w.subject()))
            .log(
                "the report's resource did not appear within {}: deleting it",
                settings.adoptionGrace());
        if (settled(key, delete(key, Read.of(w.object())))) {
          metrics.inputObjectExpired();
        }
      }
    }
    report();
  }

  /**
   * The owned per-resource reports the cluster holds now, before a diff. The first call of a term
   * returns them to seed the aggregator with; every call returns the resources that are gone: their
   * report was known to exist, is no longer there, and the resource itself is gone or has another
   * uid. Only when reports are deleted after merging; otherwise nothing.
   */
  Listed observe(List<AggregateReport> owned) {
    if (!deletesAfterMerge()) {
      return new Listed(List.of(), List.of());
    }
    List<AggregateReport> seeds = seeded ? List.of() : owned;
    seeded = true;
    List<Subject> gone = goneChecks.check(owned);
    return new Listed(seeds, gone);
  }

  /**
   * {@link #observe}, with the seeds as report-merge's rule makes them of the per-resource reports
   * ({@link KyvernoMapping#seed}): a report that makes none is logged and left out.
   */
  @Override
  public Observation observed(List<AggregateReport> owned) {
    Listed seen = observe(owned);
    Timestamp seededAt = seedTime.get();
    List<PartialReport> seeds = new ArrayList<>();
    for (AggregateReport report : seen.seeds()) {
      try {
        seeds.addAll(KyvernoMapping.seed(report, clockRule, seededAt));
      } catch (InvalidReportException e) {
        LogFields.about(LOG.atWarn(), report.ref())
            .log("the report does not seed the aggregator: {}", e.getMessage());
      }
    }
    if (!seen.seeds().isEmpty()) {
      LOG.info("seeded from {} per-resource reports", seen.seeds().size());
    }
    return new Observation(seeds, seen.gone());
  }

  /**
   * The per-resource reports {@code refs} were read again one by one (after trouble writing them):
   * those of them the cluster holds are {@code observed}, the others are not there.
   */
  @Override
  public void reread(Collection<ReportRef> refs, List<AggregateReport> observed) {
    goneChecks.reread(refs, observed);
  }

  /**
   * What {@link #observe} found: the reports to seed from, and the resources found gone, each in
   * its namespace.
   */
  record Listed(List<AggregateReport> seeds, List<Subject> gone) {}

  /**
   * {@code changes} were written (or refused as foreign, or parked): the reports merged before them
   * are reflected in the cluster, but in {@code unsettled} namespaces, and are deleted now.
   */
  @Override
  public void written(ChangeSet changes, Set<String> unsettled) {
    goneChecks.written(changes);
    if (merged.isEmpty()) {
      return;
    }
    List<Map.Entry<String, Read>> due = new ArrayList<>();
    for (var e : merged.entrySet()) {
      if (!unsettled.contains(e.getValue().namespace())) {
        due.add(Map.entry(e.getKey(), e.getValue()));
      } // else a write there waits to be tried again: its report must stay until it is done
    }
    // the deletes are independent requests: as many at once as the requests allow, each answer
    // applied here, on this thread, in order
    ReportRequests.Deleted[] answers = new ReportRequests.Deleted[due.size()];
    requests.each(due.size(), i -> answers[i] = delete(due.get(i).getKey(), due.get(i).getValue()));
    for (int i = 0; i < answers.length; i++) {
      String key = due.get(i).getKey();
      if (settled(key, answers[i])) {
        metrics.inputObjectDeleted();
        unmerge(key);
      }
    }
    report();
  }

  /** How many reports were read and are still in the cluster, waiting for a write or adoption. */
  int waitingCount() {
    return merged.size() + waiting.size();
  }

  private void report() {
    metrics.inputObjectsWaiting(waitingCount());
  }

  /**
   * What a delete's answer leaves: true when the report is gone (deleted now, or already); false
   * when the request failed (it is tried again after the next write) or it changed since, in which
   * case it is no longer merged and its new version arrives as an event, merged and deleted in
   * turn. On the aggregator thread.
   */
  private boolean settled(String key, ReportRequests.Deleted deleted) {
    if (deleted == ReportRequests.Deleted.CHANGED) {
      unmerge(key);
    }
    return deleted == ReportRequests.Deleted.GONE;
  }

  /** Deletes one report at the version read (any thread: it touches no state of this class). */
  private ReportRequests.Deleted delete(String key, Read read) {
    return requests.delete(
        key,
        KyvernoCodec.CLUSTER_EPHEMERAL_REPORT.equals(read.kind()),
        read.namespace(),
        read.name(),
        read.resourceVersion());
  }
}
