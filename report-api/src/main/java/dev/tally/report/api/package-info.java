/**
 * The vocabulary of Tally: immutable values for partial reports, results and aggregates, their
 * validation, and the {@link dev.tally.report.api.ReportAggregator} contract.
 *
 * <p>Everything here is a value: validated at construction, immutable, free of nulls. Nothing in
 * this package does I/O, reads the clock or knows about Kubernetes client libraries.
 */
@NullMarked
package dev.tally.report.api;

import org.jspecify.annotations.NullMarked;
