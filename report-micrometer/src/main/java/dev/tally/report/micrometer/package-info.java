/**
 * A Micrometer binding of report-fabric8's {@link dev.tally.report.fabric8.metrics.TallyMetrics}:
 * {@link dev.tally.report.micrometer.MicrometerTallyMetrics}.
 */
@NullMarked
package dev.tally.report.micrometer;

import org.jspecify.annotations.NullMarked;
