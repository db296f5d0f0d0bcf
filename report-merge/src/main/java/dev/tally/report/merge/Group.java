package dev.tally.report.merge;

import dev.tally.report.api.ReportKind;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.api.Subject;
import dev.tally.report.merge.names.ReportNames;
import dev.tally.report.merge.partition.PartitionBudget;
import dev.tally.report.merge.partition.PartitionTrie;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
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
  GroupPublisher.@Nullable Envelope envelope;

  /**
   * An empty group whose partitions will have {@code scope} (and so owner), as far as it is known
   * now.
   */
  Group(
      GroupKey key,
      ReportKind kind,
      ReportLayout layout,
      String input,
      String groupingId,
      PartitionBudget budget,
      Optional<Subject> scope) {
    this.key = key;
    this.kind = kind;
    this.baseName = ReportNames.base(layout, input, groupingId, key.name());
    this.labels = ReportNames.labels(layout, input, groupingId, key.namespace(), key.name());
    this.envelopePrefix = ContentHash.prefix(kind, key.namespace(), labels);
    this.trie =
        new PartitionTrie(budget.maxResults(), resultBytes(budget, scope), Register.IN_PARTITION);
    this.budgetScope = scope;
  }

  /** The bytes of results one partition of this group holds when they have {@code scope}. */
  private long resultBytes(PartitionBudget budget, Optional<Subject> scope) {
    return budget.resultBytes(kind, key.namespace(), baseName, labels, scope);
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
    long bytes = resultBytes(budget, scope);
    budgetScope = scope;
    if (bytes != trie.maxBytes()) {
      trie = trie.withMaxBytes(bytes);
    }
  }
}
