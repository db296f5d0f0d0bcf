/**
 * What the controller reads, as a plug-in: a {@link dev.tally.report.fabric8.input.ReportInput}
 * names the kinds to watch, says what one object states, and may own what happens to its objects
 * around the merge ({@link dev.tally.report.fabric8.input.InputLifecycle}) and which policies are
 * live ({@link dev.tally.report.fabric8.input.LivenessWatch}). The controller, its ledger and
 * {@link dev.tally.report.fabric8.TallyMetrics} know nothing of any one input.
 *
 * <p>Implementations: Tally's own partial reports ({@code dev.tally.report.fabric8.partials}, the
 * default), Kyverno's intermediate reports ({@code dev.tally.report.fabric8.kyverno}) and
 * trivy-operator's config audit reports ({@code dev.tally.report.fabric8.trivy}).
 */
@NullMarked
package dev.tally.report.fabric8.input;

import org.jspecify.annotations.NullMarked;
