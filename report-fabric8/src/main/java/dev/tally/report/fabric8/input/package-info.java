/**
 * What the controller reads, as a plug-in: a {@link dev.tally.report.fabric8.input.ReportInput}
 * names the kinds to watch and says what one object states, or has a {@link
 * dev.tally.report.fabric8.input.StatementSource} that states many subjects at once from elsewhere
 * (files); it may add two services around the merge ({@link
 * dev.tally.report.fabric8.input.InputServices}: {@link
 * dev.tally.report.fabric8.input.SubjectAdoption} for objects about a subject whose uid is not
 * known yet, {@link dev.tally.report.fabric8.input.Retirement} for objects that leave once merged)
 * and say which policies are live ({@link dev.tally.report.fabric8.input.LivenessWatch}), and use
 * the shared adoption service ({@link dev.tally.report.fabric8.input.ResourceLookups}) to learn the
 * uid of a resource its producer names without one. The controller, its ledger and {@link
 * dev.tally.report.fabric8.metrics.TallyMetrics} know nothing of any one input.
 *
 * <p>Implementations: Tally's own partial reports ({@code dev.tally.report.fabric8.partials}, the
 * default) and, each in a module of its own, Kyverno's intermediate reports (report-kyverno, {@code
 * dev.tally.report.kyverno}), trivy-operator's config audit reports (report-trivy, {@code
 * dev.tally.report.trivy}) and Gatekeeper's audit export (report-gatekeeper, {@code
 * dev.tally.report.gatekeeper}).
 */
@NullMarked
package dev.tally.report.fabric8.input;

import org.jspecify.annotations.NullMarked;
