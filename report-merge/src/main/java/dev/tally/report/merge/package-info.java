/**
 * The engine of Tally: the merge state and its laws. The default {@link
 * dev.tally.report.api.ReportAggregator} ({@code DefaultReportAggregator}, found through {@link
 * dev.tally.report.api.ReportAggregatorProvider}), its registers and the state they specify ({@code
 * ReportState}), the order of evaluations ({@link dev.tally.report.merge.EvaluationOrder}), the
 * canonical order of results, content hashes ({@link dev.tally.report.merge.ContentHash}) and the
 * diff of desired against observed aggregates.
 *
 * <p>Around it, by concept: {@code .partition} splits groups into partitions under the limits;
 * {@code .names} names aggregates and says which are whose; {@code .publish} holds the rules an
 * adapter applies around the aggregator (what a publisher writes, deletions, the clock rule,
 * backoff); {@code .kyverno} reads Kyverno's intermediate reports as partial reports.
 *
 * <p>Pure: no I/O, no clients, no clock, no threads of its own. Time comes in as arguments.
 */
@NullMarked
package dev.tally.report.merge;

import org.jspecify.annotations.NullMarked;
