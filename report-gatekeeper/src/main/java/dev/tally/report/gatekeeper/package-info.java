/**
 * Gatekeeper's audit as an input: {@link GatekeeperExport} reads the runs Gatekeeper's {@code disk}
 * export driver writes into a directory, as report-merge's {@code merge.gatekeeper} rule needs
 * them. Reading only: which runs count and what they state is that rule's.
 */
@NullMarked
package dev.tally.report.gatekeeper;

import org.jspecify.annotations.NullMarked;
