/**
 * The rules an adapter applies around the aggregator, decided here so that it only reads and
 * writes: what a publisher writes over a partial report object ({@link
 * dev.tally.report.merge.publish.Publication}), when a subject counts as deleted ({@link
 * dev.tally.report.merge.publish.SubjectIndex}), how far ahead of the clock an evaluation may be
 * ({@link dev.tally.report.merge.publish.ClockRule}) and how long to wait before a retry ({@link
 * dev.tally.report.merge.publish.Backoff}).
 *
 * <p>Pure: no I/O, no clock (times come in as arguments), no threads.
 */
@NullMarked
package dev.tally.report.merge.publish;

import org.jspecify.annotations.NullMarked;
