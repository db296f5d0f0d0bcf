package dev.tally.report.fabric8.resource;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The openreports {@code configuration}: {@code {limits: {maxResults, statusFilter}}}. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WireConfiguration(@Nullable Limits limits) {

  /** {@code configuration.limits}. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Limits(@Nullable Integer maxResults, @Nullable List<String> statusFilter) {}
}
