/**
 * The producer side of the adapter: what an admission webhook, a scanner or an audit uses to
 * publish its evaluations as partial reports ({@link
 * dev.tally.report.fabric8.producer.PartialReportPublisher}), one object per (producer, subject),
 * updated in place, owned by the subject, and adopted once a subject created after its evaluation
 * exists. Nothing of the controller uses it.
 */
@NullMarked
package dev.tally.report.fabric8.producer;

import org.jspecify.annotations.NullMarked;
