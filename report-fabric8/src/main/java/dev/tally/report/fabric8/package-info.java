/**
 * The Kubernetes adapter of Tally, as an operator author uses it: the partial-report publisher
 * producers use, and the controller that feeds a {@link dev.tally.report.api.ReportAggregator} from
 * partial reports in a cluster and writes its ChangeSets under one API budget.
 *
 * <p>The adapter decides nothing about report content: what an aggregate holds is decided by the
 * aggregator; the adapter only moves data between the cluster and it.
 */
@NullMarked
package dev.tally.report.fabric8;

import org.jspecify.annotations.NullMarked;
