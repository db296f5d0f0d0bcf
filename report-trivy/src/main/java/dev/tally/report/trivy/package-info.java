/**
 * trivy-operator's config audit reports as the controller's input ({@link
 * dev.tally.report.trivy.TrivyInput}): what is read and how; what each report says is {@link
 * dev.tally.report.merge.trivy.TrivyMapping}'s rule.
 */
@NullMarked
package dev.tally.report.trivy;

import org.jspecify.annotations.NullMarked;
