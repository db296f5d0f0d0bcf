/**
 * Internal: request machinery the adapter's packages share (budgeted, retried calls; paged LISTs;
 * listing owned partial reports; rate-limited logs). Public only so that Tally's other modules on
 * this adapter (the audit's members in report-audit-worker, the inputs in report-kyverno,
 * report-trivy and report-gatekeeper) can use it; not part of Tally's API, and it may change in any
 * release.
 */
@NullMarked
package dev.tally.report.fabric8.internal;

import org.jspecify.annotations.NullMarked;
