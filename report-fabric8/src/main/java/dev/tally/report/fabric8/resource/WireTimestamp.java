package dev.tally.report.fabric8.resource;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** A {@code {seconds, nanos}} timestamp as both report formats write it. */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({"nanos", "seconds"})
public record WireTimestamp(long seconds, int nanos) {}
