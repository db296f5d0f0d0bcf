package dev.tally.report.merge;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.Change;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.ReportRef;
import dev.tally.report.merge.names.Ownership;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writes that turn observed aggregates into desired ones. Pure.
 *
 * <p>Applying the result to {@code observed} yields {@code desired} for every object the aggregator
 * may touch: an object it does not manage ({@link Ownership#managed}: its managed-by label is not
 * the layout's, or in Tally's layout it is another input's) is never updated or deleted (a desired
 * object whose name is taken by such an object is skipped, and logged); a managed object it does
 * not own ({@link Ownership#owns}: another grouping's) is not deleted. A managed object is compared
 * by the hash of its content, never by the hash its annotation states: one without a stored hash
 * (one Kyverno wrote, in Kyverno's layout) is updated only if its content differs, and one whose
 * content does not hash to its annotation (changed by another hand that kept the annotation) is
 * always updated.
 */
final class ReportDiff {
  private static final Logger LOG = LoggerFactory.getLogger(ReportDiff.class);

  private ReportDiff() {}

  /**
   * A desired object known by its name and content hash, built only if it must be written: with 1%
   * of the objects changed, building the other 99% would cost more than the whole diff.
   */
  record Desired(ReportRef ref, String contentHash, Supplier<AggregateReport> report) {}

  /**
   * The diff of {@code desired} against {@code observed} for an aggregator of {@code ownership}.
   */
  static ChangeSet diffLazily(
      Collection<Desired> desired, Collection<AggregateReport> observed, Ownership ownership) {
    Map<ReportRef, AggregateReport> seen = new HashMap<>(observed.size() * 2);
    for (AggregateReport o : observed) {
      seen.put(o.ref(), o);
    }
    List<Change> changes = new ArrayList<>();
    Set<ReportRef> wanted = new HashSet<>(desired.size() * 2);
    for (Desired d : desired) {
      wanted.add(d.ref());
      AggregateReport o = seen.get(d.ref());
      if (o == null) {
        changes.add(new Change.Create(d.report().get()));
      } else if (!ownership.managed(o)) {
        LOG.warn(
            "{} exists and is not this aggregator's ({}); leaving it alone", d.ref(), ownership);
      } else {
        String had = hashOf(o);
        // what the object holds, not what its annotation claims: another hand may have changed
        // the content and kept the annotation
        if (!had.equals(d.contentHash())
            || !o.contentHash().isEmpty() && !o.contentHash().equals(had)) {
          changes.add(new Change.Update(d.report().get(), had));
        }
      }
    }
    for (AggregateReport o : observed) {
      if (!wanted.contains(o.ref()) && ownership.owns(o)) {
        changes.add(new Change.Delete(o.ref(), hashOf(o)));
      }
    }
    return new ChangeSet(changes);
  }

  /**
   * The hash of what {@code r} holds, computed from its content: never the stored annotation, which
   * another hand may have kept while changing the content.
   */
  static String hashOf(AggregateReport r) {
    return ContentHash.of(r);
  }

  /** Applies a change set to a collection of observed objects: what a cluster holds afterwards. */
  public static List<AggregateReport> apply(
      Collection<AggregateReport> observed, ChangeSet changes) {
    Map<ReportRef, AggregateReport> state = new HashMap<>();
    for (AggregateReport o : observed) {
      state.put(o.ref(), o);
    }
    for (Change c : changes.changes()) {
      if (c instanceof Change.Create create) {
        state.put(create.ref(), create.report());
      } else if (c instanceof Change.Update update) {
        state.put(update.ref(), update.report());
      } else {
        state.remove(c.ref());
      }
    }
    List<AggregateReport> out = new ArrayList<>(state.values());
    out.sort((a, b) -> a.ref().compareTo(b.ref()));
    return out;
  }
}
