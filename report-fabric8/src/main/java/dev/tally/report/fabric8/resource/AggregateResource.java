package dev.tally.report.fabric8.resource;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.tally.report.api.ReportKind;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An aggregate report object as it lives in a cluster: PolicyReport, ClusterPolicyReport, Report or
 * ClusterReport. These kinds have no {@code spec}: scope, summary and results are top-level fields.
 * The openreports kinds also carry {@code source} and {@code configuration}; the wgpolicy kinds
 * leave them null.
 *
 * <p>A mutable wire object, as fabric8's client needs; {@link ReportCodec} converts it to and from
 * the immutable {@link dev.tally.report.api.AggregateReport}.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
// fabric8 7.x (Jackson 2) binds every KubernetesResource through its KubernetesDeserializer, which
// binds the class it picks again, and so forever unless the class opts out as fabric8's own model
// classes and CustomResource do. Jackson 3 (fabric8 8.x) does not read this annotation, and on 8.x
// the JVM skips it, its type being absent; compat/fabric8-7 tests that it is needed and enough.
@com.fasterxml.jackson.databind.annotation.JsonDeserialize(
    using = com.fasterxml.jackson.databind.JsonDeserializer.None.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "apiVersion",
  "kind",
  "metadata",
  "scope",
  "scopeSelector",
  "configuration",
  "source",
  "summary",
  "results"
})
public abstract class AggregateResource implements HasMetadata {
  private String apiVersion;
  private String kind;
  private ObjectMeta metadata = new ObjectMeta();
  private @Nullable ObjectReference scope;
  private @Nullable LabelSelector scopeSelector;
  private @Nullable WireConfiguration configuration;
  private @Nullable String source;
  private @Nullable WireSummary summary;
  private List<WireResult> results = new ArrayList<>();

  protected AggregateResource() {
    this.apiVersion = HasMetadata.getApiVersion(getClass());
    this.kind = HasMetadata.getKind(getClass());
  }

  /** Which of the four aggregate kinds this class is. */
  @JsonIgnore
  public abstract ReportKind reportKind();

  @Override
  public String getApiVersion() {
    return apiVersion;
  }

  @Override
  public void setApiVersion(String apiVersion) {
    this.apiVersion = apiVersion;
  }

  @Override
  public String getKind() {
    return kind;
  }

  public void setKind(String kind) {
    this.kind = kind;
  }

  @Override
  public ObjectMeta getMetadata() {
    return metadata;
  }

  @Override
  public void setMetadata(ObjectMeta metadata) {
    this.metadata = metadata;
  }

  public @Nullable ObjectReference getScope() {
    return scope;
  }

  public void setScope(@Nullable ObjectReference scope) {
    this.scope = scope;
  }

  public @Nullable LabelSelector getScopeSelector() {
    return scopeSelector;
  }

  public void setScopeSelector(@Nullable LabelSelector scopeSelector) {
    this.scopeSelector = scopeSelector;
  }

  public @Nullable WireConfiguration getConfiguration() {
    return configuration;
  }

  public void setConfiguration(@Nullable WireConfiguration configuration) {
    this.configuration = configuration;
  }

  public @Nullable String getSource() {
    return source;
  }

  public void setSource(@Nullable String source) {
    this.source = source;
  }

  public @Nullable WireSummary getSummary() {
    return summary;
  }

  public void setSummary(@Nullable WireSummary summary) {
    this.summary = summary;
  }

  public List<WireResult> getResults() {
    return results;
  }

  public void setResults(@Nullable List<WireResult> results) {
    this.results = results == null ? new ArrayList<>() : new ArrayList<>(results);
  }
}
