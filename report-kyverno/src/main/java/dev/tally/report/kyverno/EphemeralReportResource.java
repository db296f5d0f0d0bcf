package dev.tally.report.kyverno;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** Kyverno's namespaced {@code reports.kyverno.io/v1} EphemeralReport, as Tally reads it. */
@Group("reports.kyverno.io")
@Version("v1")
@Kind(KyvernoCodec.EPHEMERAL_REPORT)
@Plural("ephemeralreports")
public final class EphemeralReportResource extends KyvernoReportResource implements Namespaced {
  @Override
  public KyvernoReportResource newOfSameKind() {
    return new EphemeralReportResource();
  }
}
