package dev.tally.report.merge;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.ReportRef;
import dev.tally.report.merge.names.Ownership;
import dev.tally.report.merge.partition.PartitionLeaf;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The resync of a {@link DefaultReportAggregator}: the writes that bring what a cluster holds to
 * the desired partitions, after which those are taken as published. It adopts what the aggregator
 * manages (Kyverno's reports in Kyverno's layout, which it rewrites only where their content
 * differs), deletes what {@link Ownership} says is this aggregator's and not desired, and leaves
 * alone names held by objects it does not manage (another tool's, or another input's) until a later
 * resync finds them free.
 *
 * <p>This class is the aggregator's resync/adoption path: it reads and resets the groups and
 * published state of its flush/publication path, {@link GroupPublisher}.
 */
final class Resync {
  private final GroupPublisher publisher;
  private final Ownership ownership;

  Resync(GroupPublisher publisher, Ownership ownership) {
    this.publisher = publisher;
    this.ownership = ownership;
  }

  /** {@link dev.tally.report.api.ReportAggregator#resync}. */
  ChangeSet resync(Collection<AggregateReport> observed) {
    InvalidReportException.requireNoNulls("observed", observed);
    // desired partitions by name and hash; a report is built only for what must be written
    List<ReportDiff.Desired> desired = new ArrayList<>();
    // per group, in the order of the groups, which nothing changes until the end
    List<List<ReportDiff.Desired>> byGroup = new ArrayList<>(publisher.groups.size());
    long[] envelopes = new long[publisher.groups.size()];
    boolean[] clean = new boolean[publisher.groups.size()];
    for (Group g : publisher.groups.values()) {
      int index = byGroup.size();
      List<ReportDiff.Desired> mine = new ArrayList<>(Math.max(1, g.published.size()));
      if (!g.dirty && g.publishedEnvelope != null && publisher.foreign.isEmpty()) {
        // unchanged since it was published: its partitions are exactly the published ones (while
        // names are held by foreign objects, a group may have more: those)
        clean[index] = true;
        envelopes[index] = g.publishedEnvelope;
        for (var e : g.published.entrySet()) {
          String name = e.getKey();
          mine.add(
              new ReportDiff.Desired(
                  GroupPublisher.ref(g, name),
                  e.getValue(),
                  () -> publisher.partitionNamed(g, name)));
        }
      } else {
        GroupPublisher.Envelope env = publisher.envelope(g);
        envelopes[index] = env.digest();
        for (PartitionLeaf leaf : g.trie.leaves()) {
          GroupPublisher.Partition p =
              GroupPublisher.partition(g, env, leaf, GroupPublisher.nameOf(g, leaf));
          mine.add(
              new ReportDiff.Desired(
                  GroupPublisher.ref(g, p.name()), p.hash(), () -> publisher.report(p)));
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
    for (Iterator<Group> it = publisher.groups.values().iterator(); it.hasNext(); index++) {
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
        publisher.lastGroup = null;
      }
    }
    publisher.dirty.clear();
    publisher.foreign = nowForeign;
    return changes;
  }

  /** {@link dev.tally.report.api.ReportAggregator#resyncOnly}. */
  ChangeSet resyncOnly(Collection<ReportRef> refs, Collection<AggregateReport> observed) {
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
    for (Group g : publisher.groups.values()) {
      if (!g.dirty && g.publishedEnvelope != null && publisher.foreign.isEmpty()) {
        for (var e : g.published.entrySet()) {
          String name = e.getKey();
          ReportRef ref = GroupPublisher.ref(g, name);
          if (only.contains(ref)) {
            desired.add(
                new ReportDiff.Desired(ref, e.getValue(), () -> publisher.partitionNamed(g, name)));
            groupOf.put(ref, g);
          }
        }
      } else {
        GroupPublisher.Envelope env =
            publisher.envelope(g); // before the leaves: it may refit them to the scope
        for (PartitionLeaf leaf : g.trie.leaves()) {
          String name = GroupPublisher.nameOf(g, leaf);
          ReportRef ref = GroupPublisher.ref(g, name);
          if (only.contains(ref)) {
            GroupPublisher.Partition p = GroupPublisher.partition(g, env, leaf, name);
            desired.add(new ReportDiff.Desired(ref, p.hash(), () -> publisher.report(p)));
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
    publisher.foreign.removeAll(only);
    for (ReportDiff.Desired d : desired) {
      if (held.contains(d.ref())) {
        publisher.foreign.add(d.ref());
        groupOf.get(d.ref()).published.remove(d.ref().name());
      } else {
        groupOf.get(d.ref()).published.put(d.ref().name(), d.contentHash());
      }
    }
    for (Group g : publisher.groups.values()) {
      for (Iterator<String> it = g.published.keySet().iterator(); it.hasNext(); ) {
        ReportRef ref = GroupPublisher.ref(g, it.next());
        if (only.contains(ref) && !groupOf.containsKey(ref)) {
          it.remove(); // not desired: deleted now, or absent already
          publisher.markDirty(g);
        }
      }
    }
    return changes;
  }
}
