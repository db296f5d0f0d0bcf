/**
 * Kyverno's intermediate reports as Tally partial reports: the pure mapping rule (producer,
 * subject, coverage from the per-policy labels, observedAt), so that Tally can stand in for
 * Kyverno's reports controller and retract what a later scan no longer finds.
 */
@NullMarked
package dev.tally.report.merge.kyverno;

import org.jspecify.annotations.NullMarked;
