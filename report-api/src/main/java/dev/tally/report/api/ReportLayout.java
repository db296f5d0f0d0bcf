package dev.tally.report.api;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How an aggregator names, labels and recognises the aggregates it writes (docs/DESIGN.md §4 and
 * §6). A grouping chooses it ({@link Grouping#layout()}).
 */
public enum ReportLayout {
  /**
   * Tally's own: names {@code tally-<grouping id>-<group>} ({@code tally-<input>--<grouping
   * id>-<group>} for an input other than the default), labels {@code app.kubernetes.io/managed-by:
   * tally}, {@code tally.dev/group} and {@code tally.dev/grouping} (and {@code tally.dev/input} for
   * an input other than the default); an aggregator changes only objects of its own input and
   * deletes only those of its own grouping too.
   */
  TALLY(WireNames.MANAGED_BY_VALUE, true, false),

  /**
   * Kyverno's reports controller's: one report per resource, named its uid, with the single label
   * {@code app.kubernetes.io/managed-by: kyverno}; every such report of the aggregator's kind is
   * the aggregator's, whoever wrote it (Kyverno or Tally) and whatever its input, so Tally takes
   * over Kyverno's reports, in place of Kyverno's reports controller: one writer per cluster.
   */
  KYVERNO(WireNames.MANAGED_BY_KYVERNO, false, true);

  private final String managedBy;
  private final boolean namesItsWriter;
  private final boolean needsSubjectScope;

  ReportLayout(String managedBy, boolean namesItsWriter, boolean needsSubjectScope) {
    this.managedBy = managedBy;
    this.namesItsWriter = namesItsWriter;
    this.needsSubjectScope = needsSubjectScope;
  }

  /**
   * Whether an aggregate names what wrote it. Tally's layout labels (and names) each aggregate with
   * its input and grouping, so aggregators of different inputs and groupings share a namespace and
   * each owns its own; Kyverno's names neither, so every report of the aggregator's kind managed in
   * it is the aggregator's, whatever input or grouping wrote it: one writer per cluster.
   */
  public boolean namesItsWriter() {
    return namesItsWriter;
  }

  /**
   * Whether a grouping of this layout must be {@linkplain Grouping#scopedToSubject() scoped to its
   * subject}: Kyverno's, whose every report is one resource's, named by its uid. (Tally's layout
   * allows any grouping, a per-subject one too.)
   */
  public boolean needsSubjectScope() {
    return needsSubjectScope;
  }

  /** The value of {@link WireNames#MANAGED_BY_LABEL} on the aggregates of this layout. */
  public String managedBy() {
    return managedBy;
  }

  /**
   * Whether an object labelled {@code labels} (null: none) is managed in this layout: its {@code
   * app.kubernetes.io/managed-by} label is {@link #managedBy()}. Tally's one rule of what may be
   * written over or deleted at all; report-merge's {@code Ownership} and every reader of labels ask
   * it.
   */
  public boolean manages(@Nullable Map<String, String> labels) {
    return labels != null && managedBy.equals(labels.get(WireNames.MANAGED_BY_LABEL));
  }
}
