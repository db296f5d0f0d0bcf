/**
 * trivy-operator's config audit reports as Tally partial reports: the pure mapping rule (producer,
 * subject from the owner reference, one coverage key for the whole scan, observedAt), so that a
 * check that passes on the next scan leaves the aggregates.
 */
@NullMarked
package dev.tally.report.merge.trivy;

import org.jspecify.annotations.NullMarked;
