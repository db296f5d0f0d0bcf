package dev.tally.report.merge;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.Fingerprint;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.HeldCounts;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportFormat;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.api.Timestamp;
import dev.tally.report.api.WireNames;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default aggregator: the registers of {@link ReportState}, kept incrementally, with one {@link
 * PartitionTrie} per group. {@code apply} and {@code deleteSubject} touch only the registers and
 * partitions they change; {@code flush} looks only at groups that changed and writes only
 * partitions whose content hash differs from what was published.
 *
 * <p>Invariants: every register with effective results is in exactly the trie of its group; {@code
 * heldByNamespace}, {@code subjectsByProducer}, {@code resultCount} and {@code registerCount} count
 * what the registers hold; no register is hidden by a tombstone. Not thread-safe.
 */
final class DefaultReportAggregator implements ReportAggregator {
  /**
   * The label naming the grouping that wrote an aggregate, so aggregators never delete each
   * other's.
   */
  private static final Logger LOG = LoggerFactory.getLogger(DefaultReportAggregator.class);

  private final AggregatorConfig config;

  /** The grouping's layout, asked once: how aggregates are named, labelled and recognised. */
  private final ReportLayout layout;

  private final Optional<ReportConfiguration> configuration;

  /** The bytes of results each group's partitions hold, from the group's real envelope. */
  private final PartitionBudget budget;

  private Liveness liveness = Liveness.all();

  private final HeldRegisters.ByUid subjects = new HeldRegisters.ByUid();

  /** Deletions per (namespace, uid): a uid claimed in one namespace never hides another's. */
  private final Map<SubjectId, Timestamp> tombstones = new HashMap<>();

  private final Map<GroupKey, Group> groups = new HashMap<>();
  private final Set<Group> dirty = new LinkedHashSet<>();

  /** What each namespace holds, as its caps count it. */
  private final Map<String, NamespaceHeld> heldByNamespace = new HashMap<>();

  /** The results, registers and producers one namespace holds. */
  private static final class NamespaceHeld {
    long results;
    long registers;
    int producers;

    boolean isEmpty() {
      return results == 0 && registers == 0 && producers == 0;
    }
  }

  /**
   * Desired objects the last resync found held by an object the layout does not own: no flush
   * writes or deletes them (even if their group goes and comes back), and the next resync looks
   * again. Nearly always empty.
   */
  private Set<ReportRef> foreign = new HashSet<>();

  /**
   * Subjects per (namespace, producer): the producer cap is counted within each namespace, so one
   * tenant's producer never uses up what another namespace's producer of the same name may hold.
   */
  private final Map<ProducerKey, int[]> subjectsByProducer = new HashMap<>();

  private record ProducerKey(String namespace, String producer) {}

  /**
   * One instance of each string and subject held. Results then share their repeated strings, and
   * registers of a partition, ordered by subject, compare equal strings by identity instead of by
   * content, which saves a cache miss per comparison on a large state.
   */
  private final ValueTable values = new ValueTable();

  private long resultCount;

  /** Registers held in all, those without results included. */
  private long registerCount;

  /** Tombstones forgotten early because the tombstone cap was reached. */
  private long tombstonesForgotten;

  /**
   * @throws InvalidReportException if the grouping's id does not make a valid label value
   */
  DefaultReportAggregator(AggregatorConfig config) {
    this.config = config;
    this.layout = AggregatorConfig.layoutOf(config.grouping());
    this.configuration =
        config.format() == ReportFormat.OPENREPORTS
            ? Optional.of(config.limits().configuration())
            : Optional.empty();
    this.budget = new PartitionBudget(config, configuration);
  }

  /** An aggregator holding exactly the registers of {@code state}. */
  static DefaultReportAggregator fromState(AggregatorConfig config, ReportState state) {
    var aggregator = new DefaultReportAggregator(config);
    aggregator.tombstones.putAll(state.tombstones());
    for (Register r : state.toRegisters()) {
      r.group = aggregator.groupKeyOf(r);
      if (r.group != null) {
        r.group = aggregator.group(r).key;
      }
      aggregator.put(r, null);
    }
    return aggregator;
  }

  @Override
  public AggregatorConfig config() {
    return config;
  }

  @Override
  public void apply(PartialReport p) {
    MergeRule.mergeable(p);
    int max = config.caps().maxResultsPerPartial();
    if (p.results().size() > max) {
      throw new CapacityExceededException(
          "results",
          "a partial report of "
              + p.producer()
              + " holds "
              + p.results().size()
              + " results, at most "
              + max
              + " allowed (cap maxResultsPerPartial)",
          max,
          "maxResultsPerPartial");
    }
    int maxCoverage = config.caps().maxCoveragePerPartial();
    int covered = p.effectiveCoverage().size();
    if (covered > maxCoverage) {
      // before a register is planned: each key would be one, with results or without
      throw new CapacityExceededException(
          "coverage",
          "a partial report of "
              + p.producer()
              + " covers "
              + covered
              + " policies, at most "
              + maxCoverage
              + " allowed (cap maxCoveragePerPartial)",
          maxCoverage,
          "maxCoveragePerPartial");
    }
    String uid = p.subject().uid();
    if (!tombstones.isEmpty()
        && MergeRule.hidden(
            p.observedAt(), tombstones.get(new SubjectId(p.subject().namespace(), uid)))) {
      LOG.debug("ignoring {} of {}: observed before its deletion", p.producer(), uid);
      return;
    }
    Order order = Order.of(p);
    // only the registers of the partial's own namespace: a uid claimed in another namespace
    // never reads, replaces or counts against what is held there
    HeldRegisters held = HeldRegisters.in(subjects.get(uid), p.subject().namespace());
    if (held == null) {
      held = HeldRegisters.NONE;
    }

    // plan everything first, user code included, so a refused report changes nothing
    List<Register> incoming = new ArrayList<>();
    long delta = 0;
    int added = 0; // registers of keys not held yet
    Subject subject = values.subject(p.subject());
    List<Subject> subjectOnly = List.of(subject);
    values.evaluatedAt(order.observedAt());
    var contents = MergeRule.registerContents(p, r -> values.result(r, subjectOnly));
    long uidPath = Fingerprint.pathPrefix(uid);
    for (var e : contents.entrySet()) {
      Register r = new Register(subject, values.key(e.getKey()), order, e.getValue(), uidPath);
      budget.checkFits(p, r);
      Register old = held.get(r.key);
      if (r.wins(old)) {
        incoming.add(r);
        delta += r.results.length - (old == null ? 0 : old.results.length);
        if (old == null) {
          added++;
        }
      }
    }
    if (incoming.isEmpty()) {
      return;
    }
    try {
      checkNamespaceCaps(p.subject().namespace(), delta, added);
      checkProducerCaps(p.subject().namespace(), p.producer(), held);
      checkProcessCaps(p.subject().namespace(), delta, added);
      for (Register r : incoming) {
        r.group = groupKeyOf(r);
        if (r.group != null) {
          // creates its group now (a group's creation asks the grouping too), and holds the
          // group's own key, so that registers of one group share one key instance
          r.group = group(r).key;
        }
      }
    } catch (RuntimeException e) {
      values.removed(); // what was interned for this report may be dropped at the next rebuild
      throw e;
    }

    for (Register r : incoming) {
      Register old = held.get(r.key);
      // a register replaced within its group stays in the trie until its successor takes its place
      Register replaced = null;
      if (old != null) {
        replaced = old.effective().length > 0 && Objects.equals(old.group, r.group) ? old : null;
        remove(old, replaced != null);
      }
      put(r, replaced);
      held = HeldRegisters.in(subjects.get(uid), p.subject().namespace());
    }
    if (values.needsRebuild()) {
      values.rebuild(allRegisters());
    }
  }

  /** The caps of one namespace: results and registers held there. */
  private void checkNamespaceCaps(String namespace, long delta, int added) {
    NamespaceHeld held = heldByNamespace.get(namespace);
    long results = held == null ? 0 : held.results;
    int cap = config.caps().maxResultsPerNamespace();
    if (delta > 0 && results + delta > cap) {
      throw new CapacityExceededException(
          "subject.namespace",
          "namespace '"
              + namespace
              + "' would hold "
              + (results + delta)
              + " results, at most "
              + cap
              + " allowed (cap maxResultsPerNamespace)",
          cap,
          "maxResultsPerNamespace");
    }
    long registers = held == null ? 0 : held.registers;
    int maxRegisters = config.caps().maxRegistersPerNamespace();
    if (added > 0 && registers + added > maxRegisters) {
      throw new CapacityExceededException(
          "subject.namespace",
          "namespace '"
              + namespace
              + "' would hold "
              + (registers + added)
              + " registers (one per subject and policy, with results or without), at most "
              + maxRegisters
              + " allowed (cap maxRegistersPerNamespace)",
          maxRegisters,
          "maxRegistersPerNamespace");
    }
  }

  /** The caps of a producer within one namespace: its subjects, and producers in all there. */
  private void checkProducerCaps(String namespace, String producer, HeldRegisters held) {
    for (Register r : held) {
      if (r.order.producer().equals(producer)) {
        return; // already counted for this subject
      }
    }
    int[] count = subjectsByProducer.get(new ProducerKey(namespace, producer));
    int cap = config.caps().maxSubjectsPerProducer();
    if (count != null && count[0] >= cap) {
      throw new CapacityExceededException(
          "producer",
          "producer '"
              + producer
              + "' already holds results for "
              + cap
              + " subjects in namespace '"
              + namespace
              + "' (cap maxSubjectsPerProducer)",
          cap,
          "maxSubjectsPerProducer");
    }
    NamespaceHeld ns = heldByNamespace.get(namespace);
    int maxProducers = config.caps().maxProducersPerNamespace();
    if (count == null && ns != null && ns.producers >= maxProducers) {
      throw new CapacityExceededException(
          "producer",
          "producer '"
              + producer
              + "' would be one more than the "
              + maxProducers
              + " producers namespace '"
              + namespace
              + "' may hold (cap maxProducersPerNamespace)",
          maxProducers,
          "maxProducersPerNamespace");
    }
  }

  /** The caps of the whole process: results and registers held in every namespace together. */
  private void checkProcessCaps(String namespace, long delta, int added) {
    long maxResults = config.caps().maxResults();
    if (delta > 0 && resultCount + delta > maxResults) {
      throw new CapacityExceededException(
          "subject.namespace",
          "the aggregator would hold "
              + (resultCount + delta)
              + " results in all, at most "
              + maxResults
              + " allowed (cap maxResults; refused for namespace '"
              + namespace
              + "')",
          maxResults,
          "maxResults");
    }
    long maxRegisters = config.caps().maxRegisters();
    if (added > 0 && registerCount + added > maxRegisters) {
      throw new CapacityExceededException(
          "subject.namespace",
          "the aggregator would hold "
              + (registerCount + added)
              + " registers in all, at most "
              + maxRegisters
              + " allowed (cap maxRegisters; refused for namespace '"
              + namespace
              + "')",
          maxRegisters,
          "maxRegisters");
    }
  }

  @Override
  public void deleteSubject(String namespace, String uid, Timestamp deletedAt) {
    InvalidReportException.requireNonNull("namespace", namespace);
    if (InvalidReportException.requireNonNull("uid", uid).isBlank()) {
      throw new InvalidReportException("uid", "is required");
    }
    InvalidReportException.requireNonNull("deletedAt", deletedAt);
    SubjectId id = new SubjectId(namespace, uid);
    Timestamp effective = tombstones.merge(id, deletedAt, (a, b) -> a.compareTo(b) >= 0 ? a : b);
    forgetOldestTombstonesPastCap(id);
    // the object in this namespace is gone; a claim of the same uid in another namespace is not
    // about it and stays
    HeldRegisters held = HeldRegisters.in(subjects.get(uid), namespace);
    if (held == null) {
      return;
    }
    List<Register> hidden = new ArrayList<>();
    for (Register r : held) {
      if (MergeRule.hidden(r.order.observedAt(), effective)) {
        hidden.add(r);
      }
    }
    hidden.forEach(this::remove);
  }

  /**
   * Past the tombstone cap, forgets the oldest tombstones (but not {@code keep}'s, just recorded)
   * down to three quarters of the cap: their retention ends early. A deletion is the cluster's fact
   * and is never refused; what is lost is only the guard against a late, older report about a
   * forgotten uid. Dropping a quarter at once keeps the sort this takes to one per quarter of the
   * cap's deletions.
   */
  private void forgetOldestTombstonesPastCap(SubjectId keep) {
    int cap = config.caps().maxTombstones();
    if (tombstones.size() <= cap) {
      return;
    }
    int target = Math.max(1, cap - cap / 4);
    List<Map.Entry<SubjectId, Timestamp>> oldest = new ArrayList<>(tombstones.entrySet());
    oldest.sort(
        Map.Entry.<SubjectId, Timestamp>comparingByValue()
            .thenComparing(e -> e.getKey().namespace())
            .thenComparing(e -> e.getKey().uid()));
    List<SubjectId> forget = new ArrayList<>();
    for (var e : oldest) {
      if (tombstones.size() - forget.size() <= target) {
        break;
      }
      if (!e.getKey().equals(keep)) {
        forget.add(e.getKey());
      }
    }
    forget.forEach(tombstones::remove);
    tombstonesForgotten += forget.size();
    LOG.warn(
        "{} tombstones held, over the cap of {} (maxTombstones): forgot the {} oldest",
        tombstones.size() + forget.size(),
        cap,
        forget.size());
  }

  @Override
  public int expireTombstones(Timestamp now) {
    InvalidReportException.requireNonNull("now", now);
    int before = tombstones.size();
    long retention = config.tombstoneRetentionSeconds();
    tombstones.values().removeIf(t -> t.plusSeconds(retention).compareTo(now) < 0);
    return before - tombstones.size();
  }

  @Override
  public void setLiveness(Liveness next) {
    if (InvalidReportException.requireNonNull("liveness", next).equals(liveness)) {
      return;
    }
    // a filter on output: take every register out of its trie, refresh its view, put it back
    List<Register> all = allRegisters();
    for (Register r : all) {
      if (r.group != null) {
        group(r); // every group exists before anything changes: creating one asks the grouping
      }
    }
    for (Register r : all) {
      if (r.effective().length > 0) {
        group(r).trie.remove(r);
      }
    }
    liveness = next;
    for (Register r : all) {
      refreshView(r);
      if (r.effective().length > 0) {
        Group g = group(r);
        g.trie.add(r);
        markDirty(g);
      }
    }
    for (Group g : groups.values()) {
      markDirty(g);
    }
  }

  @Override
  public long resultCount() {
    return resultCount;
  }

  @Override
  public HeldCounts held() {
    return new HeldCounts(
        registerCount,
        resultCount,
        subjectsByProducer.size(),
        tombstones.size(),
        tombstonesForgotten);
  }

  private static ProducerKey producerKey(Register r) {
    return new ProducerKey(r.subject.namespace(), r.order.producer());
  }

  /** Every register held, in no particular order. */
  private List<Register> allRegisters() {
    List<Register> all = new ArrayList<>();
    subjects.forEach(
        first -> {
          for (HeldRegisters h = first; h != null; h = h.next) {
            h.forEach(all::add);
          }
        });
    return all;
  }

  /** The registers of {@code r}'s subject, created when there are none yet. */
  private HeldRegisters heldFor(Register r) {
    String namespace = r.subject.namespace();
    HeldRegisters first = subjects.get(r.uid());
    HeldRegisters held = HeldRegisters.in(first, namespace);
    if (held == null) {
      held = new HeldRegisters(r.uid(), namespace, 4);
      held.next = first;
      subjects.put(held);
    }
    return held;
  }

  /** Forgets {@code held} (of {@code uid}) once it holds nothing. */
  private void dropIfEmpty(String uid, HeldRegisters held) {
    if (!held.isEmpty()) {
      return;
    }
    HeldRegisters first = subjects.get(uid);
    if (first == held) {
      if (held.next == null) {
        subjects.remove(uid);
      } else {
        subjects.put(held.next);
      }
      return;
    }
    for (HeldRegisters h = first; h != null; h = h.next) {
      if (h.next == held) {
        h.next = held.next;
        return;
      }
    }
  }

  /**
   * Adds a register that no other register of its (namespace, uid, key) is held for; in its group's
   * trie in the place of {@code replaced} when that is not null (removed from everything else, left
   * in the trie of the same group).
   */
  private void put(Register r, @Nullable Register replaced) {
    HeldRegisters held = heldFor(r);
    boolean producerNew = true;
    for (Register other : held) {
      if (other.order.producer().equals(r.order.producer())) {
        producerNew = false;
        break;
      }
    }
    held.put(r);
    NamespaceHeld ns =
        heldByNamespace.computeIfAbsent(r.subject.namespace(), k -> new NamespaceHeld());
    if (producerNew) {
      int[] subjectsOfProducer =
          subjectsByProducer.computeIfAbsent(producerKey(r), k -> new int[1]);
      if (subjectsOfProducer[0]++ == 0) {
        ns.producers++;
      }
    }
    ns.results += r.results.length;
    ns.registers++;
    resultCount += r.results.length;
    registerCount++;
    refreshView(r);
    if (replaced != null) {
      Group g = group(replaced);
      if (r.effective().length > 0) {
        g.trie.replace(replaced, r);
      } else {
        g.trie.remove(replaced);
      }
      markDirty(g);
    } else if (r.effective().length > 0) {
      Group g = group(r);
      g.trie.add(r);
      markDirty(g);
    }
  }

  private void remove(Register r) {
    remove(r, false);
  }

  /** Removes a register; from everything but its group's trie when {@code keepInTrie}. */
  private void remove(Register r, boolean keepInTrie) {
    values.removed();
    HeldRegisters held = HeldRegisters.in(subjects.get(r.uid()), r.subject.namespace());
    held.remove(r.key);
    boolean producerGone = true;
    for (Register other : held) {
      if (other.order.producer().equals(r.order.producer())) {
        producerGone = false;
        break;
      }
    }
    NamespaceHeld ns = heldByNamespace.get(r.subject.namespace());
    if (producerGone) {
      ProducerKey key = producerKey(r);
      int[] c = subjectsByProducer.get(key);
      if (--c[0] == 0) {
        subjectsByProducer.remove(key);
        ns.producers--;
      }
    }
    dropIfEmpty(r.uid(), held);
    ns.results -= r.results.length;
    ns.registers--;
    if (ns.isEmpty()) {
      heldByNamespace.remove(r.subject.namespace());
    }
    resultCount -= r.results.length;
    registerCount--;
    if (r.effective().length > 0) {
      Group g = group(r);
      if (!keepInTrie) {
        g.trie.remove(r);
      }
      markDirty(g);
    }
  }

  /** Computes what of a register goes into aggregates under the liveness and the status filter. */
  private void refreshView(Register r) {
    Result[] view;
    if (!liveness.isLive(r.key)) {
      view = new Result[0];
    } else {
      int keep = 0;
      for (Result x : r.results) {
        if (keeps(r.key, x)) {
          keep++;
        }
      }
      if (keep == r.results.length) {
        view = r.results;
      } else {
        view = new Result[keep];
        int i = 0;
        for (Result x : r.results) {
          if (keeps(r.key, x)) {
            view[i++] = x;
          }
        }
      }
    }
    int bytes = r.resultsBytes;
    long sum = r.resultsHash;
    if (view != r.results) {
      bytes = 0;
      sum = 0;
      for (Result x : view) {
        bytes += x.encodedSize() + 1;
        sum += x.digest();
      }
    }
    r.view(view, bytes, sum);
  }

  private boolean keeps(CoverageKey key, Result x) {
    return config.limits().keeps(x.status()) && liveness.isLive(key, x.rule());
  }

  /**
   * The group of a register, asked of the grouping: user code, called while planning a change so
   * that a grouping that throws or answers nothing refuses the change before anything is touched.
   */
  private @Nullable GroupKey groupKeyOf(Register r) {
    if (r.results.length == 0) {
      return null;
    }
    Grouping grouping = config.grouping();
    String namespace = r.subject.namespace();
    String name;
    try {
      name = grouping.groupOf(r.subject, r.key);
    } catch (RuntimeException e) {
      throw new InvalidReportException(
          "grouping", grouping + " failed for " + r.subject.display() + " and " + r.key + ": " + e);
    }
    if (name == null || name.isEmpty()) {
      throw new InvalidReportException(
          "grouping",
          grouping
              + " returned "
              + (name == null ? "null" : "an empty name")
              + " for "
              + r.subject.display()
              + " and "
              + r.key);
    }
    // the registers of one partial report usually go to the group of the one before
    Group last = lastGroup;
    if (last != null && last.key.name().equals(name) && last.key.namespace().equals(namespace)) {
      return last.key;
    }
    return new GroupKey(namespace, name);
  }

  /** The group a register was last found in, or null; never a group no longer held. */
  private @Nullable Group lastGroup;

  /** Whether each group is one subject's: user code, so a failure names the grouping. */
  private boolean scoped() {
    try {
      return config.grouping().scopedToSubject();
    } catch (RuntimeException e) {
      throw new InvalidReportException(
          "grouping", config.grouping() + ".scopedToSubject() failed: " + e);
    }
  }

  private Group group(Register r) {
    GroupKey key = r.group;
    if (key == null) {
      throw new IllegalStateException("register without a group: " + r.subject.display());
    }
    Group g = lastGroup != null && lastGroup.key == key ? lastGroup : groups.get(key);
    if (g == null) {
      // the byte budget of a scoped group depends on its scope: this subject's until it has more
      Optional<Subject> scope = scoped() ? Optional.of(r.subject) : Optional.empty();
      g =
          new Group(
              key,
              config.format().kindFor(key.namespace()),
              layout,
              config.grouping().id(),
              budget,
              scope);
      groups.put(key, g);
    }
    lastGroup = g;
    return g;
  }

  private void markDirty(Group g) {
    // the scope, and so the envelope, may change with the content
    g.envelope = null;
    if (!g.dirty) {
      g.dirty = true;
      dirty.add(g);
    }
  }

  @Override
  public ChangeSet flush() {
    if (dirty.isEmpty()) {
      return ChangeSet.EMPTY;
    }
    // compute every write first: a flush that throws has published nothing, and the next flush
    // produces the same writes
    List<Change> changes = new ArrayList<>();
    List<Runnable> commits = new ArrayList<>(dirty.size());
    for (Group g : dirty) {
      commits.add(publish(g, changes));
    }
    ChangeSet out = new ChangeSet(changes);
    commits.forEach(Runnable::run);
    dirty.clear();
    return out;
  }

  /**
   * Appends the writes that bring {@code g}'s published partitions to its current ones, and returns
   * what takes them as published; changes nothing itself.
   */
  private Runnable publish(Group g, List<Change> changes) {
    Envelope env = envelope(g);
    boolean envelopeChanged = g.publishedEnvelope == null || g.publishedEnvelope != env.digest;
    Map<String, String> next = new HashMap<>(g.published);
    Set<String> present = new HashSet<>();
    for (PartitionTrie.Leaf leaf : g.trie.leaves()) {
      String name = nameOf(g, leaf);
      present.add(name);
      if ((!leaf.dirty && !envelopeChanged) || foreign.contains(ref(g, name))) {
        // a name another tool's object holds is neither written nor published until a resync
        // finds it free
        continue;
      }
      Partition p = partition(g, env, leaf, name);
      String old = next.put(name, p.hash);
      if (!p.hash.equals(old)) {
        AggregateReport report = report(p);
        changes.add(old == null ? new Change.Create(report) : new Change.Update(report, old));
      }
    }
    for (Iterator<Map.Entry<String, String>> it = next.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      if (!present.contains(e.getKey())) {
        changes.add(new Change.Delete(ref(g, e.getKey()), e.getValue()));
        it.remove();
      }
    }
    return () -> {
      g.published.clear();
      g.published.putAll(next);
      g.trie.forEachLeaf(leaf -> leaf.dirty = false);
      g.publishedEnvelope = env.digest;
      g.dirty = false;
      if (g.trie.isEmpty() && g.published.isEmpty()) {
        groups.remove(g.key);
        lastGroup = null;
      }
    };
  }

  @Override
  public ChangeSet resync(Collection<AggregateReport> observed) {
    InvalidReportException.requireNoNulls("observed", observed);
    // desired partitions by name and hash; a report is built only for what must be written
    List<ReportDiff.Desired> desired = new ArrayList<>();
    // per group, in the order of groups.values(), which nothing changes until the end
    List<List<ReportDiff.Desired>> byGroup = new ArrayList<>(groups.size());
    long[] envelopes = new long[groups.size()];
    boolean[] clean = new boolean[groups.size()];
    for (Group g : groups.values()) {
      int index = byGroup.size();
      List<ReportDiff.Desired> mine = new ArrayList<>(Math.max(1, g.published.size()));
      if (!g.dirty && g.publishedEnvelope != null && foreign.isEmpty()) {
        // unchanged since it was published: its partitions are exactly the published ones (while
        // names are held by foreign objects, a group may have more: those)
        clean[index] = true;
        envelopes[index] = g.publishedEnvelope;
        for (var e : g.published.entrySet()) {
          String name = e.getKey();
          mine.add(
              new ReportDiff.Desired(ref(g, name), e.getValue(), () -> partitionNamed(g, name)));
        }
      } else {
        Envelope env = envelope(g);
        envelopes[index] = env.digest;
        for (PartitionTrie.Leaf leaf : g.trie.leaves()) {
          Partition p = partition(g, env, leaf, nameOf(g, leaf));
          mine.add(new ReportDiff.Desired(ref(g, p.name), p.hash, () -> report(p)));
        }
      }
      desired.addAll(mine);
      byGroup.add(mine);
    }
    ChangeSet changes = ReportDiff.diffLazily(desired, observed, layout, this::mine);
    // names held by objects the layout does not own: the diff skipped them, and no flush may
    // write or delete them until a resync finds them free
    Set<ReportRef> held = new HashSet<>();
    for (AggregateReport o : observed) {
      if (!o.ownedBy(layout)) {
        held.add(o.ref());
      }
    }
    Set<ReportRef> nowForeign = new HashSet<>();
    // what is desired is now taken as published, but for those names
    int index = 0;
    for (Iterator<Group> it = groups.values().iterator(); it.hasNext(); index++) {
      Group g = it.next();
      boolean mixed = false;
      if (!held.isEmpty()) {
        for (ReportDiff.Desired d : byGroup.get(index)) {
          if (held.contains(d.ref())) {
            nowForeign.add(d.ref());
            mixed = true;
          }
        }
      }
      if (clean[index] && !mixed) {
        continue;
      }
      g.published.clear();
      for (ReportDiff.Desired d : byGroup.get(index)) {
        if (!nowForeign.contains(d.ref())) {
          g.published.put(d.ref().name(), d.contentHash());
        }
      }
      g.trie.forEachLeaf(leaf -> leaf.dirty = false);
      g.publishedEnvelope = envelopes[index];
      g.dirty = false;
      if (g.trie.isEmpty()) {
        it.remove();
        lastGroup = null;
      }
    }
    dirty.clear();
    foreign = nowForeign;
    return changes;
  }

  @Override
  public ChangeSet resyncOnly(Collection<ReportRef> refs, Collection<AggregateReport> observed) {
    Set<ReportRef> only = new HashSet<>(InvalidReportException.requireNoNulls("refs", refs));
    InvalidReportException.requireNoNulls("observed", observed);
    int i = 0;
    for (AggregateReport o : observed) {
      if (!only.contains(o.ref())) {
        throw new InvalidReportException(
            "observed[" + i + "]", o.ref() + " is not one of the objects to resync");
      }
      i++;
    }
    // the desired objects among refs, with the group each belongs to
    List<ReportDiff.Desired> desired = new ArrayList<>();
    Map<ReportRef, Group> groupOf = new HashMap<>();
    for (Group g : groups.values()) {
      if (!g.dirty && g.publishedEnvelope != null && foreign.isEmpty()) {
        for (var e : g.published.entrySet()) {
          String name = e.getKey();
          ReportRef ref = ref(g, name);
          if (only.contains(ref)) {
            desired.add(new ReportDiff.Desired(ref, e.getValue(), () -> partitionNamed(g, name)));
            groupOf.put(ref, g);
          }
        }
      } else {
        Envelope env = envelope(g); // before the leaves: it may refit them to the scope
        for (PartitionTrie.Leaf leaf : g.trie.leaves()) {
          String name = nameOf(g, leaf);
          ReportRef ref = ref(g, name);
          if (only.contains(ref)) {
            Partition p = partition(g, env, leaf, name);
            desired.add(new ReportDiff.Desired(ref, p.hash, () -> report(p)));
            groupOf.put(ref, g);
          }
        }
      }
    }
    ChangeSet changes = ReportDiff.diffLazily(desired, observed, layout, this::mine);
    // those objects are now taken as published, but for those held by objects the layout does
    // not own, which no flush writes until a resync finds them free; everything else is as it was
    Set<ReportRef> held = new HashSet<>();
    for (AggregateReport o : observed) {
      if (!o.ownedBy(layout)) {
        held.add(o.ref());
      }
    }
    foreign.removeAll(only);
    for (ReportDiff.Desired d : desired) {
      if (held.contains(d.ref())) {
        foreign.add(d.ref());
        groupOf.get(d.ref()).published.remove(d.ref().name());
      } else {
        groupOf.get(d.ref()).published.put(d.ref().name(), d.contentHash());
      }
    }
    for (Group g : groups.values()) {
      for (Iterator<String> it = g.published.keySet().iterator(); it.hasNext(); ) {
        ReportRef ref = ref(g, it.next());
        if (only.contains(ref) && !groupOf.containsKey(ref)) {
          it.remove(); // not desired: deleted now, or absent already
          markDirty(g);
        }
      }
    }
    return changes;
  }

  /**
   * Whether an observed object the layout owns is this aggregator's, to delete when it is not
   * desired: one of the format's kind and, in Tally's layout, of this grouping (aggregators of
   * different groupings never delete each other's). Kyverno's reports carry no grouping label and
   * are all per resource, so in Kyverno's layout every one of the format's kind is.
   */
  private boolean mine(AggregateReport o) {
    if (o.ref().kind() != config.format().kindFor(o.ref().namespace())) {
      return false;
    }
    return layout == ReportLayout.KYVERNO
        || ReportNames.sanitize(config.grouping().id())
            .equals(o.labels().get(WireNames.GROUPING_LABEL));
  }

  @Override
  public List<AggregateReport> aggregates() {
    List<AggregateReport> out = new ArrayList<>();
    for (Group g : groups.values()) {
      Envelope env = envelope(g);
      for (PartitionTrie.Leaf leaf : g.trie.leaves()) {
        out.add(report(partition(g, env, leaf, nameOf(g, leaf))));
      }
    }
    out.sort((a, b) -> a.ref().compareTo(b.ref()));
    return out;
  }

  /** The merge state, as a value. */
  ReportState snapshot() {
    return ReportState.of(allRegisters(), tombstones);
  }

  /** The current partition of {@code g} named {@code name}, which must exist. */
  private AggregateReport partitionNamed(Group g, String name) {
    Envelope env = envelope(g);
    for (PartitionTrie.Leaf leaf : g.trie.leaves()) {
      if (nameOf(g, leaf).equals(name)) {
        return report(partition(g, env, leaf, name));
      }
    }
    throw new IllegalStateException("group " + g.key + " has no partition " + name);
  }

  /**
   * One partition of a group as it is now, its report not yet built: what {@code flush}, {@code
   * resync} and {@code aggregates} compare and write. Made only by {@link #partition}.
   */
  private record Partition(
      Group group,
      Envelope env,
      PartitionTrie.Leaf leaf,
      String name,
      Summary summary,
      String hash) {}

  /** The name of the partition {@code leaf} of {@code g}. */
  private static String nameOf(Group g, PartitionTrie.Leaf leaf) {
    return ReportNames.partition(g.baseName, leaf.suffix());
  }

  /** The partition {@code leaf} of {@code g}, named {@code name}: its summary and content hash. */
  private static Partition partition(Group g, Envelope env, PartitionTrie.Leaf leaf, String name) {
    int[] c = leaf.statusCounts;
    Summary summary = new Summary(c[0], c[1], c[2], c[3], c[4]);
    String hash = ContentHash.combine(env.digest, leaf.resultSum, leaf.count, summary);
    return new Partition(g, env, leaf, name, summary, hash);
  }

  /** The aggregate report of a partition, its results read from the leaf now. */
  private AggregateReport report(Partition p) {
    Envelope env = p.env;
    return new AggregateReport(
        ref(p.group, p.name),
        p.group.labels,
        env.scope,
        env.scope,
        configuration,
        p.leaf.results(),
        p.summary,
        p.hash);
  }

  private static ReportRef ref(Group g, String name) {
    return new ReportRef(g.kind, g.key.namespace(), name);
  }

  /** The part of every partition of a group that is not its results. */
  record Envelope(Optional<Subject> scope, long digest) {}

  private Envelope envelope(Group g) {
    if (g.envelope != null) {
      return g.envelope;
    }
    Optional<Subject> scope = Optional.empty();
    if (scoped()) {
      Subject first = null;
      for (PartitionTrie.Leaf leaf : g.trie.leaves()) {
        Subject s = leaf.first().subject;
        if (first == null || CanonicalOrder.SUBJECT.compare(s, first) < 0) {
          first = s;
        }
      }
      scope = Optional.ofNullable(first);
      if (first != null) {
        // the partitions' byte budget follows the scope; read leaves again after this
        g.fitTo(budget, scope);
      }
    }
    long digest = ContentHash.envelope(g.envelopePrefix, scope, scope, configuration);
    g.envelope = new Envelope(scope, digest);
    return g.envelope;
  }
}
