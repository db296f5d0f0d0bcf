package dev.tally.report.fabric8.resource;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code spec} of Tally's PartialReport and ClusterPartialReport ({@code tally.dev/v1alpha1}):
 * one producer's evaluation of one subject. The schema is {@code
 * META-INF/tally/crds/partialreports.tally.dev-v1.yml}.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({
  "producer",
  "subject",
  "subjectVersion",
  "observedAt",
  "generation",
  "coverage",
  "results"
})
public record PartialReportSpec(
    @Nullable String producer,
    @Nullable ObjectReference subject,
    @Nullable String subjectVersion,
    @Nullable WireTimestamp observedAt,
    @Nullable Long generation,
    @Nullable List<WireCoverageKey> coverage,
    @Nullable List<WireResult> results) {}
