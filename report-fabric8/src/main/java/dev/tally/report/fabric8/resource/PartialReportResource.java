package dev.tally.report.fabric8.resource;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Tally's namespaced {@code tally.dev/v1alpha1} PartialReport: one producer's evaluation of one
 * subject in the same namespace, owned by that subject so garbage collection removes it.
 */
@Group("tally.dev")
@Version("v1alpha1")
@Kind("PartialReport")
@Plural("partialreports")
public class PartialReportResource extends InputResource<PartialReportSpec> implements Namespaced {}
