package dev.tally.report.merge;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportConfiguration;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.api.ReportRef;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Summary;
import dev.tally.report.merge.names.Ownership;
import dev.tally.report.merge.names.ReportNames;
import dev.tally.report.merge.partition.PartitionBudget;
import dev.tally.report.merge.partition.PartitionLeaf;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The groups of a {@link DefaultReportAggregator} and what was published of them: which group a
 * register goes to, each group's partitions with their envelope, summary and content hash, and the
 * writes a flush makes. The aggregator puts registers into groups' tries and marks groups dirty;
 * {@link #flush} looks only at dirty groups and writes only partitions whose content hash differs
 * from what was published.
 *
 * <p>This class is the aggregator's flush/publication path (what the state is written as) and its
 * resync/adoption path ({@link #resync}, {@link #resyncOnly}: what the cluster holds is diffed
 * against the desired partitions, which are then taken as published), since both read and reset
 * what it takes as published; what the state holds is {@link DefaultReportAggregator}'s
 * apply/tombstone path.
 */
final class GroupPublisher {
  private final AggregatorConfig config;

  /** The grouping's layout, asked once: how aggregates are named, labelled and recognised. */
  final ReportLayout layout;

  private final Optional<ReportConfiguration> configuration;

  /** The bytes of results each group's partitions hold, from the group's real envelope. */
  private final PartitionBudget budget;

  final Map<GroupKey, Group> groups = new HashMap<>();
  private final Set<Group> dirty = new LinkedHashSet<>();

  /**
   * Desired objects the last resync found held by an object the aggregator does not manage: no
   * flush writes or deletes them (even if their group goes and comes back), and the next resync
   * looks again. Nearly always empty.
   */
  private Set<ReportRef> foreign = new HashSet<>();

  GroupPublisher(
      AggregatorConfig config,
      ReportLayout layout,
      Optional<ReportConfiguration> configuration,
      PartitionBudget budget) {
    this.config = config;
    this.layout = layout;
    this.configuration = configuration;
    this.budget = budget;
  }

  /**
   * The group of a register, asked of the grouping: user code, called while planning a change so
   * that a grouping that throws or answers nothing refuses the change before anything is touched.
   */
  @Nullable GroupKey groupKeyOf(Register r) {
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

  Group group(Register r) {
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
              config.input(),
              config.grouping().id(),
              budget,
              scope);
      groups.put(key, g);
    }
    lastGroup = g;
    return g;
  }

  void markDirty(Group g) {
    // the scope, and so the envelope, may change with the content
    g.envelope = null;
    if (!g.dirty) {
      g.dirty = true;
      dirty.add(g);
    }
  }

  /** {@link dev.tally.report.api.ReportAggregator#flush()}. */
  ChangeSet flush() {
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
    for (PartitionLeaf leaf : g.trie.leaves()) {
      String name = nameOf(g, leaf);
      present.add(name);
      if ((!leaf.dirty() && !envelopeChanged) || foreign.contains(ref(g, name))) {
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
      g.trie.forEachLeaf(PartitionLeaf::published);
      g.publishedEnvelope = env.digest;
      g.dirty = false;
      if (g.trie.isEmpty() && g.published.isEmpty()) {
        groups.remove(g.key);
        lastGroup = null;
      }
    };
  }

  /** {@link dev.tally.report.api.ReportAggregator#aggregates()}. */
  List<AggregateReport> aggregates() {
    List<AggregateReport> out = new ArrayList<>();
    for (Group g : groups.values()) {
      Envelope env = envelope(g);
      for (PartitionLeaf leaf : g.trie.leaves()) {
        out.add(report(partition(g, env, leaf, nameOf(g, leaf))));
      }
    }
    out.sort((a, b) -> a.ref().compareTo(b.ref()));
    return out;
  }

  /** The current partition of {@code g} named {@code name}, which must exist. */
  private AggregateReport partitionNamed(Group g, String name) {
    Envelope env = envelope(g);
    for (PartitionLeaf leaf : g.trie.leaves()) {
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
  record Partition(
      Group group, Envelope env, PartitionLeaf leaf, String name, Summary summary, String hash) {}

  /** The name of the partition {@code leaf} of {@code g}. */
  private static String nameOf(Group g, PartitionLeaf leaf) {
    return ReportNames.partition(g.baseName, leaf.suffix());
  }

  /** The partition {@code leaf} of {@code g}, named {@code name}: its summary and content hash. */
  private static Partition partition(Group g, Envelope env, PartitionLeaf leaf, String name) {
    Summary summary = leaf.summary();
    String hash = ContentHash.combine(env.digest, leaf.resultSum(), leaf.count(), summary);
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

  Envelope envelope(Group g) {
    if (g.envelope != null) {
      return g.envelope;
    }
    Optional<Subject> scope = Optional.empty();
    if (scoped()) {
      Subject first = null;
      for (PartitionLeaf leaf : g.trie.leaves()) {
        Subject s = ((Register) leaf.first()).subject;
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

  // ------------------------------------------------------------------ the resync and adoption
  //
  // The writes that bring what a cluster holds to the desired partitions, after which those are
  // taken as published. A resync adopts what the aggregator manages (Kyverno's reports in Kyverno's
  // layout, which it rewrites only where their content differs), deletes what Ownership says is
  // this aggregator's and not desired, and leaves alone names held by objects it does not manage
  // (another tool's, or another input's) until a later resync finds them free.

  /** {@link dev.tally.report.api.ReportAggregator#resync}. */
  ChangeSet resync(Collection<AggregateReport> observed, Ownership ownership) {
    InvalidReportException.requireNoNulls("observed", observed);
    // desired partitions by name and hash; a report is built only for what must be written
    List<ReportDiff.Desired> desired = new ArrayList<>();
    // per group, in the order of the groups, which nothing changes until the end
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
        envelopes[index] = env.digest();
        for (PartitionLeaf leaf : g.trie.leaves()) {
          Partition p = partition(g, env, leaf, nameOf(g, leaf));
          mine.add(new ReportDiff.Desired(ref(g, p.name()), p.hash(), () -> report(p)));
        }
      }
      desired.addAll(mine);
      byGroup.add(mine);
    }
    ChangeSet changes = ReportDiff.diffLazily(desired, observed, ownership);
    // names held by objects this aggregator does not manage: the diff skipped them, and no flush
    // may write or delete them until a resync finds them free
    Set<ReportRef> held = new HashSet<>();
    for (AggregateReport o : observed) {
      if (!ownership.managed(o)) {
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
      g.trie.forEachLeaf(PartitionLeaf::published);
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

  /** {@link dev.tally.report.api.ReportAggregator#resyncOnly}. */
  ChangeSet resyncOnly(
      Collection<ReportRef> refs, Collection<AggregateReport> observed, Ownership ownership) {
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
        for (PartitionLeaf leaf : g.trie.leaves()) {
          String name = nameOf(g, leaf);
          ReportRef ref = ref(g, name);
          if (only.contains(ref)) {
            Partition p = partition(g, env, leaf, name);
            desired.add(new ReportDiff.Desired(ref, p.hash(), () -> report(p)));
            groupOf.put(ref, g);
          }
        }
      }
    }
    ChangeSet changes = ReportDiff.diffLazily(desired, observed, ownership);
    // those objects are now taken as published, but for those held by objects the aggregator
    // does not manage, which no flush writes until a resync finds them free; everything else is as
    // it was
    Set<ReportRef> held = new HashSet<>();
    for (AggregateReport o : observed) {
      if (!ownership.managed(o)) {
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
}
