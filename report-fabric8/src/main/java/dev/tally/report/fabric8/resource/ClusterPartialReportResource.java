package dev.tally.report.fabric8.resource;

import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Tally's cluster-scoped {@code tally.dev/v1alpha1} ClusterPartialReport: one producer's evaluation
 * of one cluster-scoped subject.
 */
@Group("tally.dev")
@Version("v1alpha1")
@Kind("ClusterPartialReport")
@Plural("clusterpartialreports")
public class ClusterPartialReportResource extends InputResource<PartialReportSpec> {}
