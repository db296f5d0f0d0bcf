package dev.tally.report.kyverno;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tally.report.fabric8.resource.WireResult;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The part of a Kyverno intermediate report's {@code spec} that Tally reads: its results, decoded
 * straight from the watch event into {@link WireResult}s. The rest of the spec (Kyverno's {@code
 * owner} and {@code summary}) is not read and not kept; Tally never writes a spec back.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record KyvernoReportSpec(@Nullable List<WireResult> results) {}
