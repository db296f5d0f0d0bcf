/**
 * Gatekeeper's audit, as its {@code disk} export driver writes it, as Tally partial reports: the
 * pure rule that decides which runs count ({@link AuditRun}: only a run framed by its start and its
 * finish) and what a finished run states about every resource it audited ({@link
 * GatekeeperMapping}: its violations, and the retraction of what an earlier run found and this one
 * no longer does). Reading the files is the adapter's; nothing here does I/O.
 */
@NullMarked
package dev.tally.report.merge.gatekeeper;

import org.jspecify.annotations.NullMarked;
