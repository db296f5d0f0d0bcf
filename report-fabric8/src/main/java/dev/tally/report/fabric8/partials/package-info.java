/**
 * Tally's own partial reports as the controller's input ({@link
 * dev.tally.report.fabric8.partials.PartialReportsInput}), the default.
 */
@NullMarked
package dev.tally.report.fabric8.partials;

import org.jspecify.annotations.NullMarked;
