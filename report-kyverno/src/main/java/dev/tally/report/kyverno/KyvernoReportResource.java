package dev.tally.report.kyverno;

import dev.tally.report.fabric8.resource.InputResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;

/**
 * A Kyverno intermediate report as the aggregator's informers hold it: metadata and the results
 * only ({@link KyvernoReportSpec}), decoded once from the wire, so that reading one needs no second
 * pass through generic maps. {@link EphemeralReportResource} and {@link
 * ClusterEphemeralReportResource} are its two kinds.
 */
public abstract sealed class KyvernoReportResource extends InputResource<KyvernoReportSpec>
    permits EphemeralReportResource, ClusterEphemeralReportResource {

  KyvernoReportResource() {}

  /**
   * A copy of this report with {@code metadata} in place of its own; the spec is shared, as neither
   * is changed once read.
   */
  public KyvernoReportResource withMetadata(ObjectMeta metadata) {
    KyvernoReportResource copy = newOfSameKind();
    copy.setMetadata(metadata);
    copy.setSpec(getSpec());
    return copy;
  }

  /** A new, empty object of the same kind: no metadata, no spec. */
  public abstract KyvernoReportResource newOfSameKind();
}
