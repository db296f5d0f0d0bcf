package dev.tally.report.merge;

import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.api.Subject;
import dev.tally.report.api.WireNames;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One group's partitions, and what was last published of them (name to content hash), so that a
 * flush writes only partitions whose content hash changed.
 */
final class Group {
  final GroupKey key;
  final ReportKind kind;
  final String baseName;
  final Map<String, String> labels;

  /**
   * The partitions, split under the bytes {@link PartitionBudget} leaves for results beside this
   * group's envelope. When partitions are scoped to a subject that budget depends on the scope,
   * which depends on the content: {@link #fitTo} replaces the trie when it changed, so read leaves
   * only after the envelope was computed.
   */
  PartitionTrie trie;

  /** The scope {@link #trie}'s byte budget was measured with. */
  private Optional<Subject> budgetScope;

  /** {@link ContentHash#prefix} of this group's kind, namespace and labels, which never change. */
  final long envelopePrefix;

  /** Partition name to the content hash last published. */
  final Map<String, String> published = new HashMap<>(4);

  /** The envelope digest last published; null before the first publication. */
  @Nullable Long publishedEnvelope;

  boolean dirty;

  /** The envelope as last computed; null when the content changed since. */
  DefaultReportAggregator.@Nullable Envelope envelope;

  /**
   * An empty group whose partitions will have {@code scope} (and so owner), as far as it is known
   * now.
   */
  Group(
      GroupKey key,
      ReportKind kind,
      ReportLayout layout,
      String groupingId,
      PartitionBudget budget,
      Optional<Subject> scope) {
    this.key = key;
    this.kind = kind;
    this.baseName = ReportNames.base(layout, groupingId, key.name());
    this.labels = labels(layout, groupingId, key);
    this.envelopePrefix = ContentHash.prefix(kind, key.namespace(), labels);
    this.trie = new PartitionTrie(budget.maxResults(), budget.resultBytes(this, scope));
    this.budgetScope = scope;
  }

  /**
   * The labels of every partition of a group: in Kyverno's layout exactly {@code
   * app.kubernetes.io/managed-by: kyverno}, as Kyverno labels its reports.
   */
  static Map<String, String> labels(ReportLayout layout, String groupingId, GroupKey key) {
    if (layout == ReportLayout.KYVERNO) {
      return new TreeMap<>(Map.of(WireNames.MANAGED_BY_LABEL, layout.managedBy()));
    }
    // sorted like every map of the model, so digests iterate it in the same order
    return new TreeMap<>(
        Map.of(
            WireNames.MANAGED_BY_LABEL,
            WireNames.MANAGED_BY_VALUE,
            WireNames.GROUP_LABEL,
            ReportNames.groupLabel(groupingId, key.namespace(), key.name()),
            WireNames.GROUPING_LABEL,
            ReportNames.sanitize(groupingId)));
  }

  /**
   * Splits the partitions again if {@code scope}, the one they have now, changes the bytes left for
   * their results. Partitions stay a function of the content: the same registers and budget give
   * the same trie whatever the history.
   */
  void fitTo(PartitionBudget budget, Optional<Subject> scope) {
    if (scope.equals(budgetScope)) {
      return; // the common case: one subject, measured when the group was made
    }
    long bytes = budget.resultBytes(this, scope);
    budgetScope = scope;
    if (bytes != trie.maxBytes()) {
      trie = trie.withMaxBytes(bytes);
    }
  }
}
