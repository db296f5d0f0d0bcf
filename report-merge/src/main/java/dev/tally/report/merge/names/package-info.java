/**
 * Names and ownership: the deterministic, valid names and label values of every object Tally stores
 * ({@link dev.tally.report.merge.names.KubernetesNames}, {@link
 * dev.tally.report.merge.names.ReportNames} for aggregates and their labels) and the one rule of
 * which aggregates are whose ({@link dev.tally.report.merge.names.Ownership}).
 *
 * <p>Pure: no I/O, no clock.
 */
@NullMarked
package dev.tally.report.merge.names;

import org.jspecify.annotations.NullMarked;
