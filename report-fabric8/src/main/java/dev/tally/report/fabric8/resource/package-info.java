/**
 * The objects on the wire: Tally's custom resource classes ({@code PartialReport}, {@code
 * ClusterPartialReport}), the upstream report kinds it writes ({@code PolicyReport}, {@code
 * ClusterPolicyReport}, {@code Report}, {@code ClusterReport}) and {@link
 * dev.tally.report.fabric8.resource.ReportCodec}, which turns them into the model of {@code
 * report-api} and back. Reading and writing only: what a report holds is decided in report-merge.
 */
@NullMarked
package dev.tally.report.fabric8.resource;

import org.jspecify.annotations.NullMarked;
