package dev.tally.report.fabric8.resource;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * One result as the wire schema shared by {@code wgpolicyk8s.io/v1alpha2}, {@code
 * openreports.io/v1alpha1} and Tally's partial reports writes it. Absent fields are null here and
 * left out of the JSON; {@link ReportCodec} turns this into a validated {@link
 * dev.tally.report.api.Result}.
 *
 * <p>{@code status} and {@code data} are the names {@code wgpolicyk8s.io/v1alpha1} gives to {@code
 * result} and {@code properties}; they are set only on an object of that version, and the codec
 * reads a v1alpha1 result through them.
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

  /**
   * This result in the layout of {@code wgpolicyk8s.io/v1alpha1}: {@code result} moved to {@code
   * status} and {@code properties} to {@code data}.
   */
  WireResult toV1alpha1() {
    return new WireResult(
        source,
        policy,
        rule,
        null,
        severity,
        category,
        message,
        scored,
        null,
        timestamp,
        resources,
        resourceSelector,
        result,
        properties);
  }

  /**
   * {@code results} of a {@code wgpolicyk8s.io/v1alpha1} object as {@link #fromV1alpha1()} reads
   * them, adding a warning for each outcome given as {@code result} (it is written back as {@code
   * status}) and for each {@code status} that the {@code result} beside it makes a readiness,
   * dropped. {@code path} turns {@code results[i].field} into the path the warning names.
   */
  static List<@Nullable WireResult> fromV1alpha1(
      List<@Nullable WireResult> results, UnaryOperator<String> path, List<CodecWarning> warnings) {
    List<@Nullable WireResult> out = new ArrayList<>(results.size());
    for (int i = 0; i < results.size(); i++) {
      WireResult w = results.get(i);
      if (w != null && w.result != null) {
        warnings.add(
            new CodecWarning(
                path.apply("results[" + i + "].result"),
                "read as the outcome, which the final wgpolicyk8s.io/v1alpha1 schema calls"
                    + " 'status'; written back as 'status'"));
        if (w.status != null) {
          warnings.add(
              new CodecWarning(
                  path.apply("results[" + i + "].status"),
                  "'"
                      + w.status
                      + "' dropped: beside 'result' it is the policy's implementation readiness,"
                      + " which Tally does not model"));
        }
      }
      out.add(w == null ? null : w.fromV1alpha1());
    }
    return out;
  }

  /**
   * The reverse of {@link #toV1alpha1()}: {@code status} and {@code data} read as the others. The
   * outcome is {@code result} when that is given, as the v1alpha1 types named it from February to
   * April 2021 (with {@code status} then the policy's implementation readiness, which the model has
   * no place for) and as tools published it; {@code status} otherwise, the final v1alpha1 schema's
   * name.
   */
  WireResult fromV1alpha1() {
    return new WireResult(
        source,
        policy,
        rule,
        result != null ? result : status,
        severity,
        category,
        message,
        scored,
        data,
        timestamp,
        resources,
        resourceSelector,
        null,
        null);
  }
}
