package dev.tally.report.fabric8.kyverno;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.fabric8.RequestFailedException;
import dev.tally.report.fabric8.TallyMetrics;
import dev.tally.report.fabric8.internal.ApiCalls;
import dev.tally.report.fabric8.internal.RateLimitedLog;
import dev.tally.report.fabric8.internal.UnparsedDelete;
import dev.tally.report.merge.kyverno.KyvernoMapping;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.net.HttpURLConnection;
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
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle of Kyverno's intermediate reports around the merge ({@link KyvernoInput}): which
 * merged reports to delete once what they said is written, adoption of admission reports about a
 * resource with no uid yet, and, when reports are deleted after merging, which resources are gone
 * (their per-resource report vanished and so did they). It moves objects and asks the cluster; what
 * a report states and what a seed is are report-merge's ({@code KyvernoMapping}). Confined to the
 * aggregator thread.
 */
final class IntermediateReports {
  private static final Logger LOG = LoggerFactory.getLogger(IntermediateReports.class);
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

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

  /** A gone-check that failed {@code failures} times in a row, tried again at {@code nextTry}. */
  private record Recheck(int failures, Instant nextTry) {}

  /** The longest wait between two lookups of one object after failures. */
  static final Duration MAX_LOOKUP_BACKOFF = Duration.ofMinutes(5);

  private final KubernetesClient client;
  private final ApiCalls calls;
  private final KyvernoInput settings;
  private final TallyMetrics metrics;
  private final Clock clock;
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

  /** Per-resource reports known to be in the cluster, with the resource each is about. */
  private final Map<ReportRef, Subject> published = new HashMap<>();

  /** Resources whose report vanished and whose gone-check failed: asked again after a backoff. */
  private final Map<Subject, Recheck> recheck = new LinkedHashMap<>();

  private boolean seeded;

  IntermediateReports(
      KubernetesClient client,
      ApiCalls calls,
      KyvernoInput settings,
      TallyMetrics metrics,
      Clock clock) {
    this.client = client;
    this.calls = calls;
    this.settings = settings;
    this.metrics = metrics;
    this.clock = clock;
    this.lookups = new ResourceLookups(client, calls, settings);
    this.warnings = new RateLimitedLog(LOG, clock, Duration.ofMinutes(1));
  }

  /** Whether merged reports are deleted (and the aggregates are the state). */
  boolean deletesAfterMerge() {
    return settings.lifecycle() == KyvernoInput.Lifecycle.DELETE_AFTER_MERGE;
  }

  /** How often {@link #adopt} should run. */
  Duration adoptionRetry() {
    return settings.adoptionRetry();
  }

  /** The term ended: the next one seeds afresh and knows nothing of this one's objects. */
  void clear() {
    merged.clear();
    mergedByNamespace.clear();
    waiting.clear();
    awaitingByNamespace.clear();
    published.clear();
    recheck.clear();
    lookups.clear();
    seeded = false;
    report();
  }

  /** {@code object}, known as {@code key}, was applied (or stated nothing). */
  void merged(String key, HasMetadata object) {
    release(key);
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
  void checkMergeCaps(String key, HasMetadata object) {
    if (!deletesAfterMerge() || merged.containsKey(key)) {
      return;
    }
    String namespace = Objects.requireNonNullElse(object.getMetadata().getNamespace(), "");
    checkCaps(
        namespace,
        mergedByNamespace.getOrDefault(namespace, 0),
        settings.maxAwaitingDeletePerNamespace(),
        "maxAwaitingDeletePerNamespace",
        merged.size(),
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
  void awaitAdoption(String key, HasMetadata object, Subject subject) {
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

  /** Whether {@code key} was awaiting adoption; it no longer is. */
  private boolean release(String key) {
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
    checkCaps(
        namespace,
        awaitingByNamespace.getOrDefault(namespace, 0),
        settings.maxAwaitingAdoptionPerNamespace(),
        "maxAwaitingAdoptionPerNamespace",
        waiting.size(),
        settings.maxAwaitingAdoption(),
        "maxAwaitingAdoption",
        "reports awaiting adoption",
        "");
  }

  /**
   * Refuses one more of {@code what} in {@code namespace} when the namespace holds {@code
   * perNamespace} already or all namespaces {@code total}, naming the cap.
   *
   * @throws CapacityExceededException at either cap
   */
  private static void checkCaps(
      String namespace,
      int inNamespace,
      int perNamespace,
      String perNamespaceCap,
      int inAll,
      int total,
      String totalCap,
      String what,
      String consequence) {
    if (inNamespace >= perNamespace) {
      throw new CapacityExceededException(
          "metadata.namespace",
          "namespace '"
              + namespace
              + "' already holds "
              + inNamespace
              + " "
              + what
              + ", at most "
              + perNamespace
              + " allowed (cap "
              + perNamespaceCap
              + ")"
              + consequence,
          perNamespace,
          perNamespaceCap);
    }
    if (inAll >= total) {
      throw new CapacityExceededException(
          "metadata.namespace",
          inAll
              + " "
              + what
              + " in all, at most "
              + total
              + " allowed (cap "
              + totalCap
              + "; refused for namespace '"
              + namespace
              + "')"
              + consequence,
          total,
          totalCap);
    }
  }

  /** The object known as {@code key} is gone from the cluster. */
  void gone(String key) {
    if (unmerge(key) | release(key)) {
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
  void adopt(Consumer<HasMetadata> adopted) {
    Instant now = clock.instant();
    for (var e : List.copyOf(waiting.entrySet())) {
      String key = e.getKey();
      Waiting w = e.getValue();
      if (now.isBefore(w.nextTry())) {
        continue; // backing off after a failed lookup
      }
      ResourceLookups.Outcome outcome = lookups.uidOf(w.subject(), plural(w.object()));
      Optional<String> uid =
          outcome instanceof ResourceLookups.Outcome.Found found
              ? Optional.of(found.uid())
              : Optional.empty();
      if (outcome instanceof ResourceLookups.Outcome.Failed failed) {
        // not "not found": the grace does not run out on it; asked again after a backoff
        int failures = w.failures() + 1;
        Duration wait = backoff(failures);
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
            where(w.subject()),
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
            w.subject().kind(),
            where(w.subject()),
            skipped.resource(),
            settings.adoptionKinds().stream().sorted().toList(),
            settings.adoptionGrace());
      }
      if (uid.isPresent()) {
        release(key);
        if (deletesAfterMerge()) {
          adopted.accept(withUid(w.object(), uid.get(), w.subject()));
        } else {
          write(key, w.object(), uid.get(), w.subject());
        }
      } else if (Duration.between(w.since(), now).compareTo(settings.adoptionGrace()) > 0) {
        release(key);
        LOG.warn(
            "{} is about {} {}/{}, which did not appear within {}: deleting it",
            key,
            w.subject().kind(),
            w.subject().namespace(),
            w.subject().name(),
            settings.adoptionGrace());
        if (delete(key, Read.of(w.object()))) {
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
  Observation observed(List<AggregateReport> owned) {
    if (!deletesAfterMerge()) {
      return new Observation(List.of(), List.of());
    }
    List<AggregateReport> seeds = seeded ? List.of() : owned;
    seeded = true;
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
    for (Subject s : toCheck) {
      ResourceLookups.Outcome outcome = lookups.uidOf(s, null);
      if (outcome instanceof ResourceLookups.Outcome.Failed failed) {
        Recheck had = recheck.get(s);
        int failures = had == null ? 1 : had.failures() + 1;
        Duration wait = backoff(failures);
        recheck.put(s, new Recheck(failures, now.plus(wait)));
        metrics.resourceLookupFailed(TallyMetrics.Lookup.GONE_CHECK);
        warnings.warn(
            "gone-check " + failed.resource(),
            "is {} {} gone? could not read it: {}; its results stay, asked again in {}"
                + " (failure {} in a row)",
            failed.resource(),
            where(s),
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
            where(s),
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
    return new Observation(seeds, gone);
  }

  /**
   * The per-resource reports {@code refs} were read again one by one (after trouble writing them):
   * those of them the cluster holds are {@code observed}, the others are not there.
   */
  void reread(Collection<ReportRef> refs, List<AggregateReport> observed) {
    published.keySet().removeAll(refs);
    for (AggregateReport o : observed) {
      o.scope().ifPresent(s -> published.put(o.ref(), s));
    }
  }

  /**
   * What {@link #observed} found: the reports to seed from, and the resources found gone, each in
   * its namespace.
   */
  record Observation(List<AggregateReport> seeds, List<Subject> gone) {}

  /**
   * {@code changes} were all written (or refused as foreign): the reports merged before them are
   * reflected in the cluster and are deleted now.
   */
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
    if (merged.isEmpty()) {
      return;
    }
    for (var e : List.copyOf(merged.entrySet())) {
      if (delete(e.getKey(), e.getValue())) {
        metrics.inputObjectDeleted();
        unmerge(e.getKey());
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
   * Deletes one report at the version read. True when it is gone (deleted now, or already); false
   * when the request failed (it is tried again after the next write) or it changed since, in which
   * case its new version arrives as an event and is merged and deleted in turn.
   */
  private boolean delete(String key, Read read) {
    try {
      // nothing of the answer is needed but its status: it is not parsed (UnparsedDelete)
      calls.run(
          "delete " + key,
          () ->
              UnparsedDelete.delete(
                  client,
                  KyvernoCodec.CLUSTER_EPHEMERAL_REPORT.equals(read.kind())
                      ? KyvernoReports.CLUSTER_EPHEMERAL
                      : KyvernoReports.EPHEMERAL,
                  read.namespace(),
                  read.name(),
                  read.resourceVersion()));
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return true;
      }
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        unmerge(key);
        return false;
      }
      LOG.warn("could not delete {}: {}", key, RequestFailedException.rootCause(e));
      return false;
    }
  }

  /**
   * Writes the uid label and owner reference of an adopted report (keep), as a JSON merge patch of
   * its metadata at the version read: nothing else of the report is sent, so what Tally does not
   * read of it (Kyverno's {@code spec.owner}, {@code spec.summary}) stays as it is.
   */
  private void write(String key, KyvernoReportResource report, String uid, Subject subject) {
    var meta = report.getMetadata();
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("resourceVersion", meta.getResourceVersion());
    metadata.put("labels", Map.of(KyvernoMapping.UID_LABEL, uid));
    metadata.put("ownerReferences", List.of(ownerReference(uid, subject)));
    String patch = SERIALIZATION.asJson(Map.of("metadata", metadata));
    try {
      calls.call(
          "adopt " + key,
          // on the report held, so fabric8 names it without reading it first
          () -> client.resource(report).patch(PatchContext.of(PatchType.JSON_MERGE), patch));
    } catch (KubernetesClientException e) {
      // a conflict means it changed: its event brings it back to adoption
      LOG.info("could not adopt {}: {}", key, RequestFailedException.rootCause(e));
    }
  }

  /**
   * The plural of the resource an admission report names, from its {@code
   * audit.kyverno.io/resource.gvr} label ({@code <plural>.<version>[.<group>]}), or in the long
   * form from the {@code audit.kyverno.io/resource.name} label: so no discovery request is needed.
   * Null when it names none (then discovery). Whatever it names, only the adoption kinds are read.
   */
  private static @Nullable String plural(HasMetadata object) {
    Map<String, String> labels =
        object.getMetadata().getLabels() == null ? Map.of() : object.getMetadata().getLabels();
    String plural;
    String gvr = labels.get(KyvernoCodec.GVR_LABEL);
    if (gvr != null && !gvr.isEmpty()) {
      int dot = gvr.indexOf('.');
      plural = dot < 0 ? null : gvr.substring(0, dot);
    } else {
      plural = labels.get(KyvernoMapping.NAME_ANNOTATION);
    }
    return plural == null || plural.isEmpty() ? null : plural;
  }

  /** The wait before the {@code failures}th lookup of one object: doubling, capped. */
  private Duration backoff(int failures) {
    Duration wait = settings.adoptionRetry();
    for (int i = 1; i < failures && wait.compareTo(MAX_LOOKUP_BACKOFF) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    return wait.compareTo(MAX_LOOKUP_BACKOFF) > 0 ? MAX_LOOKUP_BACKOFF : wait;
  }

  private static String where(Subject s) {
    return s.namespace().isEmpty() ? s.name() : s.namespace() + "/" + s.name();
  }

  /** A copy of {@code object} with the uid label and an owner reference to the resource. */
  private static KyvernoReportResource withUid(
      KyvernoReportResource object, String uid, Subject subject) {
    var meta = new ObjectMetaBuilder(object.getMetadata()).build();
    Map<String, String> labels =
        meta.getLabels() == null ? new HashMap<>() : new HashMap<>(meta.getLabels());
    labels.put(KyvernoMapping.UID_LABEL, uid);
    meta.setLabels(labels);
    meta.setOwnerReferences(List.of(ownerReference(uid, subject)));
    return object.withMetadata(meta);
  }

  private static OwnerReference ownerReference(String uid, Subject subject) {
    return new OwnerReferenceBuilder()
        .withApiVersion(subject.apiVersion())
        .withKind(subject.kind())
        .withName(subject.name())
        .withUid(uid)
        .build();
  }
}
