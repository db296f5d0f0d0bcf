package dev.tally.report.merge;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.ReportKind;
import java.util.HashMap;
import java.util.Map;
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
  final PartitionTrie trie;

  /** {@link ContentHash#prefix} of this group's kind, namespace and labels, which never change. */
  final long envelopePrefix;

  /** Partition name to the content hash last published. */
  final Map<String, String> published = new HashMap<>(4);

  /** The envelope digest last published; null before the first publication. */
  @Nullable Long publishedEnvelope;

  boolean dirty;

  /** The envelope as last computed; null when the content changed since. */
  DefaultReportAggregator.@Nullable Envelope envelope;

  Group(GroupKey key, ReportKind kind, String groupingId, PartitionTrie trie) {
    this.key = key;
    this.kind = kind;
    this.baseName = ReportNames.base(groupingId, key.name());
    // sorted like every map of the model, so digests iterate it in the same order
    this.labels =
        new TreeMap<>(
            Map.of(
                AggregateReport.MANAGED_BY_LABEL,
                AggregateReport.MANAGED_BY_VALUE,
                AggregateReport.GROUP_LABEL,
                ReportNames.groupLabel(groupingId, key.namespace(), key.name()),
                DefaultReportAggregator.GROUPING_LABEL,
                ReportNames.sanitize(groupingId)));
    this.trie = trie;
    this.envelopePrefix = ContentHash.prefix(kind, key.namespace(), labels);
  }
}
