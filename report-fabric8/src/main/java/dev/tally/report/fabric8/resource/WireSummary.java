package dev.tally.report.fabric8.resource;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import org.jspecify.annotations.Nullable;

/**
 * The {@code summary} of an aggregate: counts by status. Absent counts read as zero. Bound as
 * {@code long}: the CRDs say {@code type: integer} and the server stores any, and one count that
 * did not bind would fail the typed LIST of every report of the kind.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"pass", "fail", "warn", "error", "skip"})
public record WireSummary(
    @Nullable Long pass,
    @Nullable Long fail,
    @Nullable Long warn,
    @Nullable Long error,
    @Nullable Long skip) {}
