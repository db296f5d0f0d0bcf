/**
 * Internal: request machinery the adapter's packages share (budgeted, retried calls; paged LISTs;
 * listing owned partial reports; rate-limited logs). Public only so that {@code
 * dev.tally.report.fabric8.audit} and the inputs of other modules ({@code report-gatekeeper}) can
 * use it; not part of Tally's API, and it may change in any release.
 */
@NullMarked
package dev.tally.report.fabric8.internal;

import org.jspecify.annotations.NullMarked;
