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
import dev.tally.report.merge.names.ReportNames;
import dev.tally.report.merge.partition.PartitionBudget;
import dev.tally.report.merge.partition.PartitionLeaf;
import java.util.ArrayList;
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
 * <p>This class is the aggregator's flush/publication path (what the state is written as); what the
 * state holds is {@link DefaultReportAggregator}'s apply/tombstone path. The resync/adoption path
 * ({@link Resync}) reads and resets what this class takes as published.
 */
final class GroupPublisher {
  private final AggregatorConfig config;

  /** The grouping's layout, asked once: how aggregates are named, labelled and recognised. */
  final ReportLayout layout;

  private final Optional<ReportConfiguration> configuration;

  /** The bytes of results each group's partitions hold, from the group's real envelope. */
  private final PartitionBudget budget;

  final Map<GroupKey, Group> groups = new HashMap<>();
  final Set<Group> dirty = new LinkedHashSet<>();

  /**
   * Desired objects the last resync found held by an object the aggregator does not manage: no
   * flush writes or deletes them (even if their group goes and comes back), and the next resync
   * looks again. Nearly always empty.
   */
  Set<ReportRef> foreign = new HashSet<>();

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
  @Nullable Group lastGroup;

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
  AggregateReport partitionNamed(Group g, String name) {
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
  static String nameOf(Group g, PartitionLeaf leaf) {
    return ReportNames.partition(g.baseName, leaf.suffix());
  }

  /** The partition {@code leaf} of {@code g}, named {@code name}: its summary and content hash. */
  static Partition partition(Group g, Envelope env, PartitionLeaf leaf, String name) {
    Summary summary = leaf.summary();
    String hash = ContentHash.combine(env.digest, leaf.resultSum(), leaf.count(), summary);
    return new Partition(g, env, leaf, name, summary, hash);
  }

  /** The aggregate report of a partition, its results read from the leaf now. */
  AggregateReport report(Partition p) {
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

  static ReportRef ref(Group g, String name) {
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
}
