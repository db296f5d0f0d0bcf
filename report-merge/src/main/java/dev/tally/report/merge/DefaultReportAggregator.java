package dev.tally.report.merge;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.Fingerprint;
import dev.tally.report.api.HeldCounts;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Liveness;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.names.OwnerReferences;
import dev.tally.report.merge.names.Ownership;
import dev.tally.report.merge.partition.PartitionBudget;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default aggregator: the registers of {@link ReportState}, kept incrementally, with one {@link
 * dev.tally.report.merge.partition.PartitionTrie} per group. {@code apply} and {@code
 * deleteSubject} touch only the registers and partitions they change; {@code flush} looks only at
 * groups that changed and writes only partitions whose content hash differs from what was
 * published.
 *
 * <p>Invariants: every register with effective results is in exactly the trie of its group; the
 * {@link Holdings} count what the registers hold; no register is hidden by a tombstone. Not
 * thread-safe.
 *
 * <p>This class is the apply/tombstone path: what the state holds (registers in, registers out,
 * tombstones, liveness). The flush/publication and resync/adoption paths are {@link
 * GroupPublisher}'s (the groups, their partitions and what was published of them); what is held is
 * counted and capped by {@link Holdings}.
 */
final class DefaultReportAggregator implements ReportAggregator {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultReportAggregator.class);

  private final AggregatorConfig config;

  /** The bytes of results each group's partitions hold, from the group's real envelope. */
  private final PartitionBudget budget;

  private Liveness liveness = Liveness.all();

  private final HeldRegisters.ByUid subjects = new HeldRegisters.ByUid();

  /** Deletions per (namespace, uid): a uid claimed in one namespace never hides another's. */
  private final Tombstones tombstones;

  /** The groups, their partitions and what was published of them. */
  private final GroupPublisher groups;

  private final Ownership ownership;

  /** What is held, as the caps count it. */
  private final Holdings holdings;

  /**
   * One instance of each string and subject held. Results then share their repeated strings, and
   * registers of a partition, ordered by subject, compare equal strings by identity instead of by
   * content, which saves a cache miss per comparison on a large state.
   */
  private final ValueTable values = new ValueTable();

  /**
   * @throws InvalidReportException if the grouping's id does not make a valid label value
   */
  DefaultReportAggregator(AggregatorConfig config) {
    this.config = config;
    Optional<ReportConfiguration> configuration =
        config.format().carriesConfiguration()
            ? Optional.of(config.limits().configuration())
            : Optional.empty();
    this.budget = new PartitionBudget(config, configuration);
    this.groups =
        new GroupPublisher(
            config, AggregatorConfig.layoutOf(config.grouping()), configuration, budget);
    this.ownership = Ownership.of(config);
    this.holdings = new Holdings(config.caps());
    this.tombstones = new Tombstones(config);
  }

  /** An aggregator holding exactly the registers of {@code state}. */
  static DefaultReportAggregator fromState(AggregatorConfig config, ReportState state) {
    var aggregator = new DefaultReportAggregator(config);
    aggregator.tombstones.putAll(state.tombstones());
    for (Register r : state.toRegisters()) {
      r.group = aggregator.groups.groupKeyOf(r);
      if (r.group != null) {
        r.group = aggregator.groups.group(r).key;
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
    holdings.checkPartial(p);
    if (config.grouping().scopedToSubject()) {
      OwnerReferences.checkOwner(p.subject()); // its report would be refused at every write
    }
    String uid = p.subject().uid();
    if (tombstones.hides(p.subject().namespace(), uid, p.observedAt())) {
      LOG.debug("ignoring {} of {}: observed before its deletion", p.producer(), uid);
      return;
    }
    EvaluationOrder order = EvaluationOrder.of(p);
    // only the registers of the partial's own namespace: a uid claimed in another namespace
    // never reads, replaces or counts against what is held there
    HeldRegisters held = HeldRegisters.in(subjects.get(uid), p.subject().namespace());
    if (held == null) {
      held = HeldRegisters.NONE;
    }

    // plan everything first, user code included, so a refused report changes nothing
    List<Register> incoming = new ArrayList<>();
    long delta = 0;
    long bytes = 0;
    int added = 0; // registers of keys not held yet
    Subject subject = values.subject(p.subject());
    List<Subject> subjectOnly = List.of(subject);
    values.evaluatedAt(order.observedAt());
    var contents = MergeRule.registerContents(p, r -> values.result(r, subjectOnly));
    long uidPath = Fingerprint.pathPrefix(uid);
    for (var e : contents.entrySet()) {
      Register r = new Register(subject, values.key(e.getKey()), order, e.getValue(), uidPath);
      checkFits(p, r);
      Register old = held.get(r.key);
      if (r.wins(old)) {
        incoming.add(r);
        delta += r.results.length - (old == null ? 0 : old.results.length);
        bytes += r.resultsBytes - (old == null ? 0 : old.resultsBytes);
        if (old == null) {
          added++;
        }
      }
    }
    if (incoming.isEmpty()) {
      return;
    }
    try {
      holdings.check(p.subject().namespace(), p.producer(), held, delta, bytes, added);
      for (Register r : incoming) {
        r.group = groups.groupKeyOf(r);
        if (r.group != null) {
          // creates its group now (a group's creation asks the grouping too), and holds the
          // group's own key, so that registers of one group share one key instance
          r.group = groups.group(r).key;
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

  /**
   * Refuses {@code p} if a result of register {@code r}, which {@code p} states, is too large for
   * any partition to hold ({@link PartitionBudget#checkFits}). Cheap when the whole register fits,
   * as nearly every one does.
   */
  private void checkFits(PartialReport p, Register r) {
    if (r.resultsBytes <= budget.room()) {
      return;
    }
    List<Subject> subjectOnly = List.of(p.subject());
    for (int i = 0; i < p.results().size(); i++) {
      Result x = p.results().get(i);
      if (x.coverageKey().equals(r.key) && config.limits().keeps(x.status())) {
        budget.checkFits(i, MergeRule.aboutSubject(x, subjectOnly));
      }
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
    Timestamp effective = tombstones.record(id, deletedAt);
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

  @Override
  public int expireTombstones(Timestamp now) {
    InvalidReportException.requireNonNull("now", now);
    return tombstones.expire(now);
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
        groups.group(
            r); // every group exists before anything changes: creating one asks the grouping
      }
    }
    for (Register r : all) {
      if (r.effective().length > 0) {
        groups.group(r).trie.remove(r);
      }
    }
    liveness = next;
    for (Register r : all) {
      refreshView(r);
      if (r.effective().length > 0) {
        Group g = groups.group(r);
        g.trie.add(r);
        groups.markDirty(g);
      }
    }
    for (Group g : groups.groups.values()) {
      groups.markDirty(g);
    }
  }

  @Override
  public long resultCount() {
    return holdings.resultCount();
  }

  @Override
  public HeldCounts held() {
    return new HeldCounts(
        holdings.registerCount(),
        holdings.resultCount(),
        holdings.producers(),
        tombstones.size(),
        tombstones.forgotten(),
        holdings.resultBytes());
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
    boolean producerNew = !held.holds(r.order.producer());
    held.put(r);
    holdings.put(r, producerNew);
    refreshView(r);
    if (replaced != null) {
      Group g = groups.group(replaced);
      if (r.effective().length > 0) {
        g.trie.replace(replaced, r);
      } else {
        g.trie.remove(replaced);
      }
      groups.markDirty(g);
    } else if (r.effective().length > 0) {
      Group g = groups.group(r);
      g.trie.add(r);
      groups.markDirty(g);
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
    boolean producerGone = !held.holds(r.order.producer());
    dropIfEmpty(r.uid(), held);
    holdings.remove(r, producerGone);
    if (r.effective().length > 0) {
      Group g = groups.group(r);
      if (!keepInTrie) {
        g.trie.remove(r);
      }
      groups.markDirty(g);
    }
  }

  /** Computes what of a register goes into aggregates under the liveness and the status filter. */
  private void refreshView(Register r) {
    r.refreshView(liveness, config.limits());
  }

  @Override
  public ChangeSet flush() {
    return groups.flush();
  }

  @Override
  public ChangeSet resync(Collection<AggregateReport> observed) {
    return groups.resync(observed, ownership);
  }

  @Override
  public ChangeSet resyncOnly(Collection<ReportRef> refs, Collection<AggregateReport> observed) {
    return groups.resyncOnly(refs, observed, ownership);
  }

  @Override
  public List<AggregateReport> aggregates() {
    return groups.aggregates();
  }

  /** The merge state, as a value. */
  ReportState snapshot() {
    return ReportState.of(allRegisters(), tombstones.asMap());
  }
}
