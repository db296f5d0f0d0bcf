/**
 * The distributed audit on Kubernetes: Lease membership, per-member status ConfigMaps merged by the
 * pure run ledger, a first-writer-wins run manifest, and a worker that audits its units with paged
 * LISTs and publishes the results as partial reports.
 *
 * <p>Every decision (which units, who audits what, when a run is complete) is made by the pure
 * planning in {@code dev.tally.report.audit}; this package only moves state between the cluster and
 * it.
 */
@NullMarked
package dev.tally.report.audit.worker;

import org.jspecify.annotations.NullMarked;
