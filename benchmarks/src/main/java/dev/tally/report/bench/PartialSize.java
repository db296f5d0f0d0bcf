package dev.tally.report.bench;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.EncodedSize;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import java.nio.charset.StandardCharsets;
import java.util.TreeSet;

/**
 * An estimate of the bytes of an intermediate report object, the partial report as a custom
 * resource ({@code tally.dev/v1alpha1 PartialReport}, or the equivalent Kyverno ephemeral report):
 * its results counted by {@link EncodedSize#of(Result)}, which the adapter's tests validate against
 * real JSON, plus an envelope written out as JSON here (metadata with Tally's labels and an
 * ownerReference to the subject, the subject, coverage, observedAt and generation). Like {@link
 * EncodedSize} it leaves out what the API server adds (uid, resourceVersion, managedFields).
 */
final class PartialSize {
  private PartialSize() {}

  static long of(PartialReport p) {
    long results = 2;
    for (int i = 0; i < p.results().size(); i++) {
      results += EncodedSize.of(p.results().get(i)) + (i == 0 ? 0 : 1);
    }
    return envelopeBytes(p) + results;
  }

  /** The bytes of the object without its results' array. */
  static int envelopeBytes(PartialReport p) {
    return envelope(p).getBytes(StandardCharsets.UTF_8).length;
  }

  /** The object without its results array (which goes where {@code []} stands). */
  static String envelope(PartialReport p) {
    Subject s = p.subject();
    StringBuilder json = new StringBuilder(512);
    json.append("{\"apiVersion\":\"tally.dev/v1alpha1\",\"kind\":\"")
        .append(s.clusterScoped() ? "ClusterPartialReport" : "PartialReport")
        .append("\",\"metadata\":{\"name\":\"")
        .append(p.producer().replace('/', '-'))
        .append('-')
        .append(s.uid())
        .append('"');
    if (!s.clusterScoped()) {
      json.append(",\"namespace\":\"").append(s.namespace()).append('"');
    }
    json.append(",\"labels\":{\"app.kubernetes.io/managed-by\":\"tally\",\"tally.dev/producer\":\"")
        .append(p.producer().replace('/', '-'))
        .append("\",\"tally.dev/subject-uid\":\"")
        .append(s.uid())
        .append("\"},\"ownerReferences\":[")
        .append(subject(s, true))
        .append("]},\"spec\":{\"producer\":\"")
        .append(p.producer())
        .append("\",\"subject\":")
        .append(subject(s, false));
    if (!p.subjectVersion().isEmpty()) {
      json.append(",\"subjectVersion\":\"").append(p.subjectVersion()).append('"');
    }
    json.append(",\"coverage\":[");
    boolean first = true;
    for (CoverageKey k : new TreeSet<>(p.coverage())) {
      json.append(first ? "" : ",").append("{\"source\":\"").append(k.source());
      json.append("\",\"policy\":\"").append(k.policy()).append("\"}");
      first = false;
    }
    json.append("],\"observedAt\":{\"seconds\":")
        .append(p.observedAt().seconds())
        .append(",\"nanos\":")
        .append(p.observedAt().nanos())
        .append("},\"generation\":")
        .append(p.generation())
        .append(",\"results\":}}");
    return json.toString();
  }

  private static String subject(Subject s, boolean ownerReference) {
    return "{\"apiVersion\":\""
        + s.apiVersion()
        + "\",\"kind\":\""
        + s.kind()
        + (ownerReference || s.clusterScoped() ? "" : "\",\"namespace\":\"" + s.namespace())
        + "\",\"name\":\""
        + s.name()
        + "\",\"uid\":\""
        + s.uid()
        + (ownerReference ? "\",\"controller\":true}" : "\"}");
  }
}
