/**
 * Splitting and sizes: how one group's results are split into partitions that respect the limits,
 * stably ({@link dev.tally.report.merge.partition.PartitionTrie} and its leaves, {@link
 * dev.tally.report.merge.partition.PartitionLeaf}), and how many bytes of results a partition may
 * hold ({@link dev.tally.report.merge.partition.PartitionBudget}). The trie holds what the
 * aggregator gives it as {@link dev.tally.report.merge.partition.PartitionTrie.Member}s.
 *
 * <p>Pure: no I/O, no clock.
 */
@NullMarked
package dev.tally.report.merge.partition;

import org.jspecify.annotations.NullMarked;
