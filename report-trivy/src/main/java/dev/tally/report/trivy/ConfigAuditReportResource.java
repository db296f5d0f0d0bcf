package dev.tally.report.trivy;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonIncludeProperties;
import dev.tally.report.fabric8.resource.InputResource;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import org.jspecify.annotations.Nullable;

/**
 * trivy-operator's namespaced {@code aquasecurity.github.io/v1alpha1} ConfigAuditReport, as the
 * aggregator's informer holds it: what {@link TrivyCodec} reads and nothing else.
 *
 * <p>trivy-operator's CRD keeps unknown fields at the root of a report ({@code
 * x-kubernetes-preserve-unknown-fields}, since trivy-operator 0.18.5), so whoever may write a
 * report can add any field there, as large and as deeply nested as the API server stores. They are
 * skipped while the object is parsed ({@link InputResource}); so are {@code spec} and {@code
 * status}, which a report does not have, and {@code report}'s fields that Tally does not read
 * ({@link ConfigAuditReportData}). Of the metadata it keeps what Tally reads of an input object:
 * name, namespace, uid, resourceVersion, creation time and owner references.
 */
@Group("aquasecurity.github.io")
@Version("v1alpha1")
@Kind("ConfigAuditReport")
@Plural("configauditreports")
@JsonIgnoreProperties(
    value = {"spec", "status"},
    ignoreUnknown = true)
public final class ConfigAuditReportResource extends InputResource<Void> implements Namespaced {
  private @Nullable ConfigAuditReportData report;

  /** The report's {@code report}; null when it has none. */
  public @Nullable ConfigAuditReportData getReport() {
    return report;
  }

  public void setReport(@Nullable ConfigAuditReportData report) {
    this.report = report;
  }

  /** The metadata as read: the fields Tally reads of an input object, no others. */
  @Override
  @JsonIncludeProperties({
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "ownerReferences"
  })
  public void setMetadata(ObjectMeta metadata) {
    super.setMetadata(metadata);
  }
}
