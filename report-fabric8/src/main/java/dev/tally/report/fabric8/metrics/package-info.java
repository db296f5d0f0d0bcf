/**
 * What Tally's components tell about their work ({@link
 * dev.tally.report.fabric8.metrics.TallyMetrics}, an SPI: report-micrometer binds it to
 * Micrometer), with the values it hears.
 */
@NullMarked
package dev.tally.report.fabric8.metrics;

import org.jspecify.annotations.NullMarked;
