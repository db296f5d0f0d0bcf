package dev.tally.report.api;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One outcome of one policy rule, with every field of the result schema shared by {@code
 * wgpolicyk8s.io/v1alpha2} and {@code openreports.io/v1alpha1}. Immutable and validated: {@link
 * #builder()} throws {@link InvalidReportException} naming the field.
 *
 * <p>Absent strings are empty; absent optional values ({@link #severity()}, {@link #scored()},
 * {@link #timestamp()}, {@link #resourceSelector()}) are {@link Optional#empty()}.
 */
public final class Result {
  private final String source;
  private final String policy;
  private final String rule;
  private final ResultStatus status;
  private final @Nullable Severity severity;
  private final String category;
  private final String message;
  private final @Nullable Boolean scored;
  private final Map<String, String> properties;
  private final @Nullable Timestamp timestamp;
  private final List<Subject> resources;
  private final @Nullable LabelSelector resourceSelector;

  /** {@link #digest()} and {@link #encodedSize()}, computed once, while validating. */
  private final long digest;

  private final int encodedSize;

  private Result(Builder b) {
    // one pass over each string: validation, digest and encoded size together
    ResultFacts facts = new ResultFacts();
    this.source = facts.text("source", b.source, Checks.MAX_IDENTIFIER, false);
    this.policy = facts.text("policy", b.policy, Checks.MAX_IDENTIFIER, true);
    this.rule = facts.text("rule", b.rule, Checks.MAX_IDENTIFIER, false);
    this.status = Checks.nonNull("result", b.status);
    facts.quoted("result", status.ordinal(), status.wireName());
    this.severity = b.severity;
    facts.severity(severity);
    this.category = facts.text("category", b.category, Checks.MAX_IDENTIFIER, false);
    this.message = facts.text("message", b.message, Checks.MAX_MESSAGE, false);
    this.scored = b.scored;
    facts.scored(scored);
    this.properties = Checks.stringMap("properties", b.properties, Checks.MAX_PROPERTY_VALUE);
    facts.properties(properties);
    this.timestamp = b.timestamp;
    facts.timestamp(timestamp);
    Checks.nonNull("resources", b.resources);
    if (b.resources.size() > Checks.MAX_MAP_ENTRIES) {
      throw new InvalidReportException(
          "resources",
          "has " + b.resources.size() + " entries, at most " + Checks.MAX_MAP_ENTRIES + " allowed");
    }
    this.resources = Checks.listOf("resources", b.resources);
    facts.resources(resources);
    this.resourceSelector = b.resourceSelector;
    facts.selector(resourceSelector);
    this.digest = facts.digest();
    this.encodedSize = facts.encodedSize();
  }

  /** A copy of {@code r} made of the given instances, equal to its own values. */
  private Result(
      Result r,
      String source,
      String policy,
      String rule,
      String category,
      String message,
      Map<String, String> properties,
      List<Subject> resources,
      @Nullable Timestamp timestamp) {
    this.source = source;
    this.policy = policy;
    this.rule = rule;
    this.status = r.status;
    this.severity = r.severity;
    this.category = category;
    this.message = message;
    this.scored = r.scored;
    this.properties = properties;
    this.timestamp = timestamp;
    this.resources = resources;
    this.resourceSelector = r.resourceSelector;
    this.digest = r.digest;
    this.encodedSize = r.encodedSize;
  }

  /**
   * This result with the given source, policy, rule, category, message, resources and timestamp,
   * its other fields kept: what {@code toBuilder()} with those values and {@code build()} make.
   * When the values are equal to this result's own (other instances of them, as a caller that holds
   * one instance of each equal value passes so that the results it keeps share them), the copy is
   * made without validating, digesting or measuring anything again; this result itself when every
   * instance already is its own.
   *
   * @throws InvalidReportException naming the first invalid field, as {@link Builder#build()}
   */
  public Result withValues(
      String source,
      String policy,
      String rule,
      String category,
      String message,
      List<Subject> resources,
      @Nullable Timestamp timestamp) {
    if (source == this.source
        && policy == this.policy
        && rule == this.rule
        && category == this.category
        && message == this.message
        && resources == this.resources
        && timestamp == this.timestamp) {
      return this;
    }
    if (this.source.equals(source)
        && this.policy.equals(policy)
        && this.rule.equals(rule)
        && this.category.equals(category)
        && this.message.equals(message)
        && Objects.equals(this.timestamp, timestamp)
        // equal to a list without nulls: holds none
        && (resources == this.resources || this.resources.equals(resources))) {
      // an immutable copy as the builder makes it: a caller's immutable list is taken as it is
      List<Subject> held = resources == this.resources ? resources : List.copyOf(resources);
      return new Result(this, source, policy, rule, category, message, properties, held, timestamp);
    }
    return toBuilder()
        .source(source)
        .policy(policy)
        .rule(rule)
        .category(category)
        .message(message)
        .resources(resources)
        .timestamp(timestamp)
        .build();
  }

  /**
   * This result made of the instances {@code held} holds, when it states the same: a copy whose
   * source, policy, rule, category, message and properties are {@code held}'s, whose resources are
   * {@code resources} and whose timestamp is {@code timestamp}, provided that those fields, the
   * status, severity, scored and resource selector are all equal to this result's own; null when
   * any of them differs. {@code held} is usually another subject's result of the same rule, met
   * before: a caller that holds one instance of each value finds all of this result's values by
   * comparing each field once, and nothing is validated, digested or measured again. This result
   * itself when it already is made of those instances.
   *
   * <p>What the copy states is this result's: it equals this result and has its digest and size.
   *
   * @throws InvalidReportException when {@code held} or {@code resources} is null
   */
  public @Nullable Result sharingValuesOf(
      Result held, List<Subject> resources, @Nullable Timestamp timestamp) {
    Checks.nonNull("held", held);
    Checks.nonNull("resources", resources);
    if (status != held.status
        || severity != held.severity
        || !Objects.equals(scored, held.scored)
        || !source.equals(held.source)
        || !policy.equals(held.policy)
        || !rule.equals(held.rule)
        || !message.equals(held.message)
        || !category.equals(held.category)
        || !Objects.equals(this.timestamp, timestamp)
        || !(resources == this.resources || this.resources.equals(resources))
        || !properties.equals(held.properties)
        || !Objects.equals(resourceSelector, held.resourceSelector)) {
      return null;
    }
    if (source == held.source
        && policy == held.policy
        && rule == held.rule
        && category == held.category
        && message == held.message
        && properties == held.properties
        && resources == this.resources
        && timestamp == this.timestamp) {
      return this;
    }
    // equal to a list without nulls: holds none; an immutable one is taken as it is
    List<Subject> list = resources == this.resources ? resources : List.copyOf(resources);
    return new Result(
        this,
        held.source,
        held.policy,
        held.rule,
        held.category,
        held.message,
        held.properties,
        list,
        timestamp);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this result's fields, to derive a changed copy. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.source = source;
    b.policy = policy;
    b.rule = rule;
    b.status = status;
    b.severity = severity;
    b.category = category;
    b.message = message;
    b.scored = scored;
    b.properties = properties;
    b.timestamp = timestamp;
    b.resources = resources;
    b.resourceSelector = resourceSelector;
    return b;
  }

  public String source() {
    return source;
  }

  public String policy() {
    return policy;
  }

  public String rule() {
    return rule;
  }

  /** The outcome: the {@code result} field on the wire. */
  public ResultStatus status() {
    return status;
  }

  public Optional<Severity> severity() {
    return Optional.ofNullable(severity);
  }

  public String category() {
    return category;
  }

  public String message() {
    return message;
  }

  public Optional<Boolean> scored() {
    return Optional.ofNullable(scored);
  }

  public Map<String, String> properties() {
    return properties;
  }

  public Optional<Timestamp> timestamp() {
    return Optional.ofNullable(timestamp);
  }

  /** The objects this result is about ({@code resources} on the wire); may be empty. */
  public List<Subject> resources() {
    return resources;
  }

  public Optional<LabelSelector> resourceSelector() {
    return Optional.ofNullable(resourceSelector);
  }

  /**
   * A stable 64-bit digest of every field but the timestamp: equal results have equal digests, and
   * so do results that differ only in when they were observed, the same in every JVM, run and
   * platform (FNV-1a over each string's UTF-16 code units, finished with SplitMix64's mixer).
   * Computed once, when the result is built; the merge compares, partitions and hashes results by
   * it without reading their strings again.
   */
  public long digest() {
    return digest;
  }

  /**
   * The bytes of this result's compact UTF-8 JSON object as Tally's adapter writes it (empty
   * strings, empty maps and absent values left out). Computed once, when the result is built.
   */
  public int encodedSize() {
    return encodedSize;
  }

  /** The (source, policy) this result belongs to. */
  public CoverageKey coverageKey() {
    return new CoverageKey(source, policy);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Result r)) {
      return false;
    }
    return status == r.status
        && severity == r.severity
        && source.equals(r.source)
        && policy.equals(r.policy)
        && rule.equals(r.rule)
        && category.equals(r.category)
        && message.equals(r.message)
        && Objects.equals(scored, r.scored)
        && properties.equals(r.properties)
        && Objects.equals(timestamp, r.timestamp)
        && resources.equals(r.resources)
        && Objects.equals(resourceSelector, r.resourceSelector);
  }

  @Override
  public int hashCode() {
    int h = source.hashCode();
    h = 31 * h + policy.hashCode();
    h = 31 * h + rule.hashCode();
    h = 31 * h + status.hashCode();
    h = 31 * h + Objects.hashCode(severity);
    h = 31 * h + category.hashCode();
    h = 31 * h + message.hashCode();
    h = 31 * h + Objects.hashCode(scored);
    h = 31 * h + properties.hashCode();
    h = 31 * h + Objects.hashCode(timestamp);
    h = 31 * h + resources.hashCode();
    h = 31 * h + Objects.hashCode(resourceSelector);
    return h;
  }

  @Override
  public String toString() {
    return "Result["
        + (source.isEmpty() ? "" : source + "/")
        + policy
        + (rule.isEmpty() ? "" : "/" + rule)
        + " "
        + status
        + (resources.isEmpty() ? "" : " " + resources.get(0).display())
        + "]";
  }

  /** Collects the fields of a {@link Result}; {@link #build()} validates them. */
  public static final class Builder {
    private String source = "";
    private String policy = "";
    private String rule = "";
    private @Nullable ResultStatus status;
    private @Nullable Severity severity;
    private String category = "";
    private String message = "";
    private @Nullable Boolean scored;
    private Map<String, String> properties = Map.of();
    private @Nullable Timestamp timestamp;
    private List<Subject> resources = List.of();
    private @Nullable LabelSelector resourceSelector;

    private Builder() {}

    public Builder source(String source) {
      this.source = Checks.nonNull("source", source);
      return this;
    }

    public Builder policy(String policy) {
      this.policy = Checks.nonNull("policy", policy);
      return this;
    }

    public Builder rule(String rule) {
      this.rule = Checks.nonNull("rule", rule);
      return this;
    }

    public Builder status(ResultStatus status) {
      this.status = status;
      return this;
    }

    public Builder severity(@Nullable Severity severity) {
      this.severity = severity;
      return this;
    }

    public Builder category(String category) {
      this.category = Checks.nonNull("category", category);
      return this;
    }

    public Builder message(String message) {
      this.message = Checks.nonNull("message", message);
      return this;
    }

    public Builder scored(@Nullable Boolean scored) {
      this.scored = scored;
      return this;
    }

    public Builder properties(Map<String, String> properties) {
      this.properties = Checks.nonNull("properties", properties);
      return this;
    }

    public Builder timestamp(@Nullable Timestamp timestamp) {
      this.timestamp = timestamp;
      return this;
    }

    /**
     * @throws InvalidReportException naming {@code timestamp.seconds} or {@code timestamp.nanos}
     */
    public Builder timestamp(long seconds, int nanos) {
      this.timestamp = Timestamp.of("timestamp", seconds, nanos);
      return this;
    }

    public Builder resources(List<Subject> resources) {
      this.resources = Checks.nonNull("resources", resources);
      return this;
    }

    public Builder resource(Subject resource) {
      this.resources = List.of(Checks.nonNull("resources[0]", resource));
      return this;
    }

    public Builder resourceSelector(@Nullable LabelSelector resourceSelector) {
      this.resourceSelector = resourceSelector;
      return this;
    }

    /**
     * @throws InvalidReportException naming the first invalid field
     */
    public Result build() {
      return new Result(this);
    }
  }
}
