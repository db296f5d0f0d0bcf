/**
 * The pure algorithms of Tally: the state-based merge of partial reports, canonical order and
 * summaries, grouping, stable size-bounded splitting, diffing and the default {@link
 * dev.tally.report.api.ReportAggregator}.
 *
 * <p>Pure: no I/O, no clients, no clock, no threads of its own. Time comes in as arguments.
 */
@NullMarked
package dev.tally.report.merge;

import org.jspecify.annotations.NullMarked;
