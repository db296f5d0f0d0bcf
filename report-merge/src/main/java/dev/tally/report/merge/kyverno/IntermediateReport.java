package dev.tally.report.merge.kyverno;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.Result;
import dev.tally.report.api.Timestamp;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One of Kyverno's intermediate reports ({@code reports.kyverno.io/v1} {@code EphemeralReport} or
 * {@code ClusterEphemeralReport}) as plain data: what the adapter reads off the object, before any
 * decision about what it means. {@link KyvernoMapping} decides.
 *
 * @param namespace the report's namespace; empty for a {@code ClusterEphemeralReport}
 * @param name the report's name
 * @param labels the report's labels
 * @param annotations the report's annotations
 * @param owner the uid of the report's owner reference, if it has one (background reports and
 *     adopted admission reports)
 * @param created the report's {@code creationTimestamp}, if known
 * @param results {@code spec.results}, decoded
 */
public record IntermediateReport(
    String namespace,
    String name,
    Map<String, String> labels,
    Map<String, String> annotations,
    Optional<String> owner,
    Optional<Timestamp> created,
    List<Result> results) {

  public IntermediateReport {
    InvalidReportException.requireNonNull("namespace", namespace);
    InvalidReportException.requireNonNull("name", name);
    labels = sorted("metadata.labels", labels);
    annotations = sorted("metadata.annotations", annotations);
    InvalidReportException.requireNonNull("owner", owner);
    InvalidReportException.requireNonNull("created", created);
    results = List.copyOf(InvalidReportException.requireNoNulls("spec.results", results));
  }

  private static Map<String, String> sorted(String field, Map<String, String> map) {
    InvalidReportException.requireNonNull(field, map);
    Map<String, String> copy = new TreeMap<>();
    map.forEach(
        (k, v) -> {
          if (k == null || v == null) {
            throw new InvalidReportException(field, "holds a null key or value");
          }
          copy.put(k, v);
        });
    return java.util.Collections.unmodifiableMap(copy);
  }
}
