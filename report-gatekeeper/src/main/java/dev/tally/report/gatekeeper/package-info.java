/**
 * Gatekeeper's audit as an input on report-fabric8's SPI: {@link GatekeeperInput} (what {@code
 * --input gatekeeper} runs) states the newest finished run {@link GatekeeperExport} reads from the
 * directory Gatekeeper's {@code disk} export driver writes, with the constraints whose status names
 * the run and the uids the shared adoption service reads. Reading only: which runs count and what
 * they state is report-merge's {@code merge.gatekeeper} rule's.
 */
@NullMarked
package dev.tally.report.gatekeeper;

import org.jspecify.annotations.NullMarked;
