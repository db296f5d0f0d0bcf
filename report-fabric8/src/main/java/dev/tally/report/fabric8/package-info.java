/**
 * The Kubernetes adapter's controller, as an operator author uses it: {@link
 * dev.tally.report.fabric8.AggregatorController} feeds a {@link
 * dev.tally.report.api.ReportAggregator} from an input in a cluster and writes its ChangeSets under
 * one API budget, with leader election and recovery; {@link
 * dev.tally.report.fabric8.TallyResources} holds the manifests it ships. The producer side is
 * {@code …fabric8.producer}, what every component is configured with {@code …fabric8.client}, the
 * metrics SPI {@code …fabric8.metrics}, the inputs' SPI {@code …fabric8.input}.
 *
 * <p>The adapter decides nothing about report content: what an aggregate holds is decided by the
 * aggregator; the adapter only moves data between the cluster and it.
 */
@NullMarked
package dev.tally.report.fabric8;

import org.jspecify.annotations.NullMarked;
