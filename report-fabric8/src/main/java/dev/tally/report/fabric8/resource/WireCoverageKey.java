package dev.tally.report.fabric8.resource;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

/** One (source, policy) pair of a partial report's {@code spec.coverage}. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record WireCoverageKey(@Nullable String source, @Nullable String policy) {}
