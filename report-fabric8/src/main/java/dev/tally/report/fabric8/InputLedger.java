package dev.tally.report.fabric8;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.input.InputServices;
import dev.tally.report.fabric8.input.ReportInput;
import dev.tally.report.fabric8.input.Retirement;
import dev.tally.report.fabric8.input.Statement;
import dev.tally.report.fabric8.input.StatementSource;
import dev.tally.report.fabric8.input.SubjectAdoption;
import dev.tally.report.fabric8.internal.LogFields;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.resource.InputResource;
import dev.tally.report.merge.publish.ClockRule;
import dev.tally.report.merge.publish.SubjectIndex;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The aggregator of the current term and what it was fed, per input object (and what its input's
 * statement source stated): the resourceVersion last handled (so each version is applied once,
 * whether the informer's cache or its events deliver it), and which subject the object was about
 * ({@link SubjectIndex}, which decides when a subject is deleted). The liveness is kept across
 * terms.
 *
 * <p>It decodes (through its {@link ReportInput}) and applies, tells the input's services ({@link
 * InputServices}) what became of each object, and hands refusals to {@link RejectionEvents}; every
 * change to the aggregator is announced to {@code changed}, which schedules a flush. Confined to
 * the aggregator thread.
 */
final class InputLedger {
  private static final Logger LOG = LoggerFactory.getLogger(InputLedger.class);

  private final ReportInput input;
  private final @Nullable SubjectAdoption adoption;
  private final @Nullable Retirement retirement;
  private final RejectionEvents rejections;
  private final InformerStores copies;
  private final TallyMetrics metrics;
  private final Supplier<Timestamp> now;
  private final ClockRule clock;
  private final Runnable changed;

  private @Nullable ReportAggregator aggregator;
  private Liveness liveness = Liveness.all();
  private final SubjectIndex subjects = new SubjectIndex();

  /**
   * The resourceVersion of each input object last handled, to handle each once; a version refused
   * is marked with {@link #REFUSED} before it.
   */
  private final Map<String, String> handledVersions = new HashMap<>();

  /** Marks a handled version that was refused; no resourceVersion begins with it. */
  private static final String REFUSED = "!";

  /** Objects refused at a cap, tried again by the next periodic re-list ({@link #retryRefused}). */
  private final Set<String> refusedAtCap = new HashSet<>();

  /** The input's source of statements that are not objects, or null. */
  private final @Nullable StatementSource source;

  /**
   * Whether the owned aggregates were observed in this term (the input's seeds applied): the source
   * is polled only from then on, so that what it states is measured against what the cluster held.
   */
  private boolean observedThisTerm;

  /**
   * @param services what {@code input} adds around the merge ({@link InputServices#NONE} when
   *     nothing)
   * @param source the input's statements that are not objects, or null
   */
  InputLedger(
      ReportInput input,
      InputServices services,
      @Nullable StatementSource source,
      RejectionEvents rejections,
      InformerStores copies,
      TallyMetrics metrics,
      Supplier<Timestamp> now,
      ClockRule clock,
      Runnable changed) {
    this.input = input;
    this.adoption = services.adoption();
    this.retirement = services.retirement();
    this.source = source;
    this.rejections = rejections;
    this.copies = copies;
    this.metrics = metrics;
    this.now = now;
    this.clock = clock;
    this.changed = changed;
  }

  /** Starts a term with a fresh aggregator, live as set so far; nothing is fed to it yet. */
  void begin(ReportAggregator fresh) {
    aggregator = fresh;
    fresh.setLiveness(liveness);
  }

  /** Ends the term: the aggregator and what it was fed are dropped. */
  void end() {
    aggregator = null;
    subjects.clear();
    handledVersions.clear();
    refusedAtCap.clear();
    observedThisTerm = false;
    if (adoption != null) {
      adoption.termEnded();
    }
    if (retirement != null) {
      retirement.termEnded();
    }
    if (source != null) {
      source.termEnded();
    }
  }

  /** The aggregator of the current term, or null between terms. */
  @Nullable ReportAggregator aggregator() {
    return aggregator;
  }

  /**
   * How many objects the aggregator holds partial reports of; when the aggregates are the state
   * (input objects deleted after merging), how many resources.
   */
  int size() {
    return subjects.size();
  }

  /** Which policies and rules are live, now and in every later term. */
  void setLiveness(Liveness newLiveness) {
    liveness = newLiveness;
    if (aggregator != null) {
      aggregator.setLiveness(newLiveness);
      changed.run();
    }
  }

  /** An input object appeared or changed: applies it once per version, or rejects it. */
  void upsert(HasMetadata resource) {
    if (aggregator == null || InformerStores.isCopy(resource)) {
      return; // a stripped copy, from the informer's cache: its version was handled already
    }
    String key = key(resource);
    String version = Objects.requireNonNullElse(resource.getMetadata().getResourceVersion(), "");
    String handled = handledVersions.get(key);
    if (version.equals(handled)) {
      // the informer's cache and its events both deliver every object: once is enough; and a
      // re-list's LIST may bring a version before the informer's watch does, which then holds it
      // whole: it holds its identity alone from now on
      copies.handled(resource);
      return;
    }
    if ((REFUSED + version).equals(handled)) {
      // refused already, delivered again (the informer listed afresh and holds it whole again)
      copies.refused(resource, holds(key));
      return;
    }
    handledVersions.put(key, version);
    if (apply(key, resource)) {
      // nothing more is read of this version than its identity: the informers hold that alone
      copies.handled(resource);
    }
  }

  /**
   * The objects refused at a cap are handled again the next time they are delivered, even at the
   * same version: a periodic re-list calls this first, so that what was refused for want of room
   * gets in once there is room, without being applied twice in between.
   */
  void retryRefused() {
    // the content comes from that re-list, not from the informers, which hold a refused object's
    // identity alone (InformerStores)
    for (String key : refusedAtCap) {
      handledVersions.remove(key);
    }
    refusedAtCap.clear();
  }

  /**
   * Applies what {@code resource}, known as {@code key} and in the cluster, states.
   *
   * @return false when it was refused
   */
  private boolean apply(String key, HasMetadata resource) {
    return apply(key, resource, false);
  }

  /**
   * Applies what {@code resource}, known as {@code key}, states; {@code gone} when it was removed
   * already (its last state), so that there is no delete for it to wait for.
   *
   * @return false when it was refused
   */
  private boolean apply(String key, HasMetadata resource, boolean gone) {
    ReportAggregator agg = Objects.requireNonNull(aggregator);
    PartialReport partial;
    try {
      Statement statement = input.decode(resource);
      if (statement instanceof Statement.AwaitsAdoption awaits) {
        LOG.debug("{} waits for its subject to be adopted", key);
        if (adoption != null) {
          adoption.await(key, resource, awaits.subject());
        }
        return true;
      }
      if (!gone && retirement != null) {
        // e.g. merged objects waiting for their delete, within caps: past them, none is merged
        retirement.beforeMerge(key, resource);
      }
      if (!(statement instanceof Statement.Ready ready)) {
        merged(key, resource);
        if (adoption != null || retirement != null) {
          changed.run(); // a flush, so that what follows a write (a delete) happens
        }
        return true;
      }
      // an evaluation from the future would outrank every real one (the clock rule)
      partial = clock.check(ready.partial(), now.get());
      agg.apply(partial);
    } catch (InvalidReportException e) {
      rejections.reject(key, resource, e);
      if (e instanceof CapacityExceededException) {
        // not its content's fault: the next periodic re-list tries it again, when there may be room
        refusedAtCap.add(key);
      }
      refused(key, resource);
      return false;
    }
    metrics.partialApplied();
    if (removalDeletesSubject()) {
      // the same producer and subject name about a new uid: the old subject may be gone
      subjects
          .upsert(key, partial.subject().namespace(), partial.subject().uid(), partial.observedAt())
          .ifPresent(this::delete);
    } else {
      track(partial);
    }
    merged(key, resource);
    changed.run();
    return true;
  }

  /** {@code resource}, known as {@code key}, was merged or said nothing: the services hear it. */
  private void merged(String key, HasMetadata resource) {
    if (adoption != null) {
      adoption.release(key);
    }
    if (retirement != null) {
      retirement.merged(key, resource);
    }
  }

  /** The object known as {@code key} left the cluster, or need not be acted on. */
  private void left(String key) {
    if (adoption != null) {
      adoption.release(key);
    }
    if (retirement != null) {
      retirement.gone(key);
    }
  }

  /**
   * {@code resource}, known as {@code key}, was refused at its version: that is remembered, and the
   * informers hold its identity alone, or nothing past their caps ({@link InformerStores}).
   */
  private void refused(String key, HasMetadata resource) {
    String version = Objects.requireNonNullElse(resource.getMetadata().getResourceVersion(), "");
    handledVersions.replace(key, version, REFUSED + version);
    copies.refused(resource, holds(key)).ifPresent(cap -> rejections.notHeld(key, resource, cap));
  }

  /**
   * Whether the removal of the object known as {@code key} changes something: the aggregator holds
   * an earlier version of it, whose subject its removal may delete.
   */
  private boolean holds(String key) {
    return removalDeletesSubject() && subjects.contains(key);
  }

  /**
   * An input object is gone. When input objects are deleted after merging, that says nothing about
   * the subject, and an object deleted before it was merged (by another hand, or collected with its
   * resource) still says what its last state said: that is applied, when {@code resource} is that
   * state (a re-list's deletion hands over the informer's copy); a watch's deletion, read as the
   * object's identity alone, follows the upsert of that state, which the feed handed over first.
   */
  void removed(HasMetadata resource) {
    if (aggregator == null) {
      return;
    }
    String key = key(resource);
    String handled = handledVersions.remove(key);
    if (handled != null && handled.startsWith(REFUSED)) {
      handled = handled.substring(REFUSED.length());
    }
    refusedAtCap.remove(key);
    left(key);
    if (!removalDeletesSubject()) {
      String version = Objects.requireNonNullElse(resource.getMetadata().getResourceVersion(), "");
      // an identity says nothing: a stripped copy (a version handled already, from the informer's
      // cache), or a watch's deletion, whose last state came first as an upsert
      if (!version.equals(handled) && !InputResource.isIdentityOnly(resource)) {
        apply(key, resource, true);
        left(key); // it is not there to delete
      }
      return;
    }
    if (forget(key)) {
      changed.run();
    }
  }

  /**
   * Objects awaiting adoption look for their resource again ({@link SubjectAdoption#retry}); one
   * found is applied at once.
   */
  void adoptPending() {
    if (aggregator == null || adoption == null) {
      return;
    }
    adoption.retry(adopted -> apply(key(adopted), adopted));
  }

  /**
   * The owned aggregates as the cluster holds them, before the controller diffs against them: when
   * the aggregates are the state, the input's retirement seeds the aggregator from the first list
   * of a term, and a vanished aggregate whose resource is gone deletes that resource.
   */
  void observed(List<AggregateReport> owned) {
    ReportAggregator agg = aggregator;
    if (agg == null) {
      return;
    }
    Retirement.Observation seen =
        retirement == null ? Retirement.Observation.NOTHING : retirement.observed(owned);
    for (PartialReport seed : seen.seeds()) {
      try {
        agg.apply(seed);
        track(seed);
      } catch (InvalidReportException e) {
        LogFields.about(LOG.atWarn(), seed.subject())
            .log("a seed about this subject is refused: {}", e.getMessage());
      }
    }
    for (Subject gone : seen.gone()) {
      // at the later of now and what was observed about it, as SubjectIndex decides; only in its
      // own namespace: a report elsewhere claiming the same uid is not about this resource
      subjects
          .remove(resourceKey(gone.namespace(), gone.uid()))
          .ifPresentOrElse(
              this::delete, () -> deleteSubject(gone.namespace(), gone.uid(), now.get()));
      LOG.debug("subject {}/{} is gone with its report", gone.namespace(), gone.uid());
    }
    if (!observedThisTerm) {
      observedThisTerm = true;
      pollSource(); // before the term's first diff, which follows this
    }
  }

  /**
   * Applies what the input's {@link StatementSource} states that is new, once the term observed the
   * owned aggregates; a statement refused is logged and counted, and the others apply.
   */
  void pollSource() {
    ReportAggregator agg = aggregator;
    if (agg == null || source == null || !observedThisTerm) {
      return;
    }
    List<PartialReport> stated = source.poll(agg::aggregates);
    int applied = 0;
    for (PartialReport p : stated) {
      try {
        PartialReport partial = clock.check(p, now.get());
        agg.apply(partial);
        track(partial);
        metrics.partialApplied();
        applied++;
      } catch (InvalidReportException e) {
        rejections.counted(e);
        LogFields.about(LOG.atWarn(), p.subject())
            .log("a statement of the input's source is refused: {}", e.getMessage());
      }
    }
    if (applied > 0) {
      changed.run();
    }
  }

  /**
   * When the aggregates are the state, the index holds one entry per resource (not per object), so
   * that a resource found gone is deleted at the later of now and its latest evaluation.
   */
  private void track(PartialReport partial) {
    Subject s = partial.subject();
    subjects.upsert(
        resourceKey(s.namespace(), s.uid()), s.namespace(), s.uid(), partial.observedAt());
  }

  /**
   * A resource's entry in {@link #subjects} when the aggregates are the state: its namespace and
   * uid, since a uid is only a claim of whoever wrote the report.
   */
  private static String resourceKey(String namespace, String uid) {
    return "resource/" + namespace + "/" + uid;
  }

  /**
   * The objects {@code refs} were read again one by one, after trouble writing them; {@code
   * observed} is what the cluster holds of them (see {@link Retirement#reread}).
   */
  void reread(Collection<ReportRef> refs, List<AggregateReport> observed) {
    if (aggregator != null && retirement != null) {
      retirement.reread(refs, observed);
    }
  }

  /**
   * {@code changes} were written (or left as they are for good), and every namespace but {@code
   * unsettled} holds what was applied: the input's retirement may act there (delete merged
   * objects).
   */
  void written(ChangeSet changes, Set<String> unsettled) {
    if (aggregator != null && retirement != null) {
      retirement.written(changes, unsettled);
    }
  }

  /** Whether an input object's removal can make its subject deleted. */
  private boolean removalDeletesSubject() {
    return retirement == null;
  }

  /**
   * Every object handled but not in {@code present} is gone: it was deleted without its event
   * reaching the informer.
   *
   * @return how many objects the aggregator held partial reports of were forgotten
   */
  int forgetAllBut(Set<String> present) {
    int forgotten = 0;
    for (String key : List.copyOf(handledVersions.keySet())) {
      if (!present.contains(key)) {
        handledVersions.remove(key);
        left(key);
        if (removalDeletesSubject() && forget(key)) {
          forgotten++;
        }
      }
    }
    if (forgotten > 0) {
      changed.run();
    }
    return forgotten;
  }

  /** Whether {@code key} was an object the aggregator held a partial report of. */
  private boolean forget(String key) {
    if (!subjects.contains(key)) {
      return false;
    }
    subjects.remove(key).ifPresent(this::delete);
    return true;
  }

  /**
   * The last partial report about a subject is gone (garbage collection removes partial reports
   * with their subject): {@link SubjectIndex} decided that and the time, given now.
   */
  private void delete(SubjectIndex.Deletion deletion) {
    Timestamp deletedAt = deletion.at(now.get());
    deleteSubject(deletion.namespace(), deletion.uid(), deletedAt);
    LOG.debug("subject {}/{} deleted at {}", deletion.namespace(), deletion.uid(), deletedAt);
  }

  /**
   * Deletes a subject; when the aggregator forgot its oldest tombstones to stay within its cap,
   * that is counted ({@link TallyMetrics#capacityReached}) as every other cap is.
   */
  private void deleteSubject(String namespace, String uid, Timestamp deletedAt) {
    ReportAggregator agg = Objects.requireNonNull(aggregator);
    long forgotten = agg.held().tombstonesForgotten();
    agg.deleteSubject(namespace, uid, deletedAt);
    if (agg.held().tombstonesForgotten() > forgotten) {
      metrics.capacityReached("maxTombstones");
    }
  }

  /** The object's key: kind, namespace (empty when cluster-scoped) and name. */
  static String key(HasMetadata resource) {
    var meta = resource.getMetadata();
    return resource.getKind()
        + "/"
        + Optional.ofNullable(meta.getNamespace()).orElse("")
        + "/"
        + meta.getName();
  }
}
