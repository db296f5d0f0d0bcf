/**
 * Tally in a Java Operator SDK (JOSDK 5.x) operator. A reconciler holds one {@link
 * dev.tally.report.josdk.TallyReports}, returns its {@link
 * dev.tally.report.josdk.TallyReports#eventSource event source} from {@code prepareEventSources}
 * (so the publisher and the aggregator start and stop with the controller), and calls {@link
 * dev.tally.report.josdk.TallyReports#report report(primary, results)} in {@code reconcile}.
 *
 * <p>Like the fabric8 adapter it sits on, this module decides nothing about report content: it
 * turns the primary resource into the partial report's subject and hands the results to the
 * publisher.
 */
@NullMarked
package dev.tally.report.josdk;

import org.jspecify.annotations.NullMarked;
