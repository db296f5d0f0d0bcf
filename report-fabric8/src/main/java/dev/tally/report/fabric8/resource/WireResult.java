package dev.tally.report.fabric8.resource;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One result as the wire schema shared by {@code wgpolicyk8s.io/v1alpha2}, {@code
 * openreports.io/v1alpha1} and Tally's partial reports writes it. Absent fields are null here and
 * left out of the JSON; {@link ReportCodec} turns this into a validated {@link
 * dev.tally.report.api.Result}.
 *
 * <p>{@code status} and {@code data} are the names the final {@code wgpolicyk8s.io/v1alpha1} schema
 * gives to {@code result} and {@code properties} (its schema of March 2021 used this layout's
 * names, timestamp included); they are set only on an object of that version, which the adapter
 * never writes (report-files reads and writes that version through them).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({
  "source",
  "policy",
  "rule",
  "result",
  "status",
  "severity",
  "category",
  "message",
  "scored",
  "properties",
  "data",
  "timestamp",
  "resources",
  "resourceSelector"
})
public record WireResult(
    @Nullable String source,
    @Nullable String policy,
    @Nullable String rule,
    @Nullable String result,
    @Nullable String severity,
    @Nullable String category,
    @Nullable String message,
    @Nullable Boolean scored,
    @Nullable Map<String, String> properties,
    @Nullable WireTimestamp timestamp,
    @Nullable List<ObjectReference> resources,
    @Nullable LabelSelector resourceSelector,
    @Nullable String status,
    @Nullable Map<String, String> data) {

  /** A result in the layout every version but {@code wgpolicyk8s.io/v1alpha1} uses. */
  public WireResult(
      @Nullable String source,
      @Nullable String policy,
      @Nullable String rule,
      @Nullable String result,
      @Nullable String severity,
      @Nullable String category,
      @Nullable String message,
      @Nullable Boolean scored,
      @Nullable Map<String, String> properties,
      @Nullable WireTimestamp timestamp,
      @Nullable List<ObjectReference> resources,
      @Nullable LabelSelector resourceSelector) {
    this(
        source,
        policy,
        rule,
        result,
        severity,
        category,
        message,
        scored,
        properties,
        timestamp,
        resources,
        resourceSelector,
        null,
        null);
  }
}
