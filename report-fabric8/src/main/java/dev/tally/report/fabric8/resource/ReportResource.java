package dev.tally.report.fabric8.resource;

import dev.tally.report.api.ReportKind;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/** {@code openreports.io/v1alpha1} Report (namespaced). */
@Group("openreports.io")
@Version("v1alpha1")
@Kind("Report")
@Plural("reports")
public class ReportResource extends AggregateResource implements Namespaced {
  @Override
  public ReportKind reportKind() {
    return ReportKind.REPORT;
  }
}
