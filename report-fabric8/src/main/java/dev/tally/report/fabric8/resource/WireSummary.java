package dev.tally.report.fabric8.resource;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import org.jspecify.annotations.Nullable;

/** The {@code summary} of an aggregate: counts by status. Absent counts read as zero. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"pass", "fail", "warn", "error", "skip"})
public record WireSummary(
    @Nullable Integer pass,
    @Nullable Integer fail,
    @Nullable Integer warn,
    @Nullable Integer error,
    @Nullable Integer skip) {}
