/**
 * Reports read from files: what other tools publish (YAML or JSON text, kubectl dumps, older API
 * versions), read into the model of {@code report-api} through {@link
 * dev.tally.report.files.ReportFiles}, and written back in the version they were read in. Not on
 * the aggregator's path: the adapter ({@code report-fabric8}) writes and strictly decodes only what
 * Tally writes.
 */
@NullMarked
package dev.tally.report.files;

import org.jspecify.annotations.NullMarked;
