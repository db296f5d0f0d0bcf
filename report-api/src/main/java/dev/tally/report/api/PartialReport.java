package dev.tally.report.api;

import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A producer's statement about one subject: "for these policies (the coverage), these are all the
 * results". The unit of input of the merge.
 *
 * <p>Invariants, checked at construction: the subject has a kind and a name; every result belongs
 * to the coverage; every object a result names lives in the subject's namespace (a partial report
 * cannot speak about another namespace); when no coverage is declared it is the keys of the
 * results, so a partial with neither results nor coverage says nothing and is refused.
 *
 * <p>The subject's uid may be empty: an admission webhook evaluates a CREATE before the object
 * exists. Such a partial report is valid to publish (it is written without an owner and {@link
 * #withSubjectUid adopted} once the object exists), but not to merge: an aggregator refuses it,
 * naming {@code subject.uid}, since every register is keyed by the uid.
 *
 * @param producer who evaluated, such as {@code admission} or {@code audit/nightly}
 * @param subject the object evaluated
 * @param subjectVersion the subject's resourceVersion or content hash when evaluated, may be empty
 * @param coverage the (source, policy) pairs evaluated; empty means "the keys of the results"
 * @param results every result of the coverage; absence inside the coverage retracts
 * @param observedAt when the evaluation happened, with nanoseconds
 * @param generation breaks ties of {@code observedAt} within one producer, such as a counter. Which
 *     of two evaluations is later is decided in one place, report-merge's {@code EvaluationOrder}
 */
public record PartialReport(
    String producer,
    Subject subject,
    String subjectVersion,
    Set<CoverageKey> coverage,
    List<Result> results,
    Timestamp observedAt,
    long generation) {

  public PartialReport {
    Checks.required("producer", Checks.nonNull("producer", producer), Checks.MAX_IDENTIFIER);
    Checks.nonNull("subject", subject);
    // the subject checked its lengths and characters: only what a partial report adds
    Checks.present("subject.kind", subject.kind());
    Checks.present("subject.name", subject.name());
    Checks.optional(
        "subjectVersion", Checks.nonNull("subjectVersion", subjectVersion), Checks.MAX_IDENTIFIER);
    Checks.nonNull("observedAt", observedAt);
    if (generation < 0) {
      throw new InvalidReportException("generation", "must not be negative, was " + generation);
    }
    results = Checks.listOf("results", results);
    // sorted, so every encoding of a partial report is the same in every run
    coverage =
        Collections.unmodifiableSortedSet(
            new TreeSet<>(InvalidReportException.requireNoNulls("coverage", coverage)));
    if (coverage.isEmpty() && results.isEmpty()) {
      throw new InvalidReportException(
          "coverage", "a partial report without results must declare the policies it covers");
    }
    // the results of one policy usually come together: a key found in the coverage is not looked
    // up again for the next result of the same source and policy
    boolean declared = !coverage.isEmpty();
    String coveredSource = "";
    String coveredPolicy = ""; // no policy is empty: no result matches before the first look-up
    for (int i = 0; i < results.size(); i++) {
      Result r = results.get(i); // listOf refused a null element, naming it
      if (declared && !(r.policy().equals(coveredPolicy) && r.source().equals(coveredSource))) {
        if (!coverage.contains(r.coverageKey())) {
          throw new InvalidReportException(
              "results[" + i + "].policy",
              "'"
                  + r.coverageKey()
                  + "' is outside the declared coverage "
                  + new TreeSet<>(coverage));
        }
        coveredSource = r.source();
        coveredPolicy = r.policy();
      }
      List<Subject> resources = r.resources();
      for (int j = 0; j < resources.size(); j++) {
        String ns = resources.get(j).namespace();
        if (!ns.equals(subject.namespace())) {
          throw new InvalidReportException(
              "results[" + i + "].resources[" + j + "].namespace",
              "'"
                  + ns
                  + "' is not the namespace of the partial report's subject '"
                  + subject.namespace()
                  + "'");
        }
      }
    }
  }

  /** The coverage this report is authoritative for: the declared one, or its results' keys. */
  public Set<CoverageKey> effectiveCoverage() {
    if (!coverage.isEmpty()) {
      return coverage;
    }
    Set<CoverageKey> keys = new TreeSet<>();
    for (Result r : results) {
      keys.add(r.coverageKey());
    }
    return Collections.unmodifiableSortedSet((TreeSet<CoverageKey>) keys);
  }

  /** Whether the subject's uid is known, so that an aggregator can merge this report. */
  public boolean adopted() {
    return !subject.uid().isEmpty();
  }

  /** The same evaluation about the subject once it exists and has {@code uid}. */
  public PartialReport withSubjectUid(String uid) {
    return new PartialReport(
        producer, subject.withUid(uid), subjectVersion, coverage, results, observedAt, generation);
  }

  /**
   * The same evaluation, observed at {@code at}.
   *
   * @throws InvalidReportException naming {@code observedAt} when it is null
   */
  public PartialReport withObservedAt(Timestamp at) {
    return new PartialReport(
        producer,
        subject,
        subjectVersion,
        coverage,
        results,
        InvalidReportException.requireNonNull("observedAt", at),
        generation);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Collects the fields of a partial report; {@link #build()} validates them. */
  public static final class Builder {
    private String producer = "";
    private Subject subject = new Subject("", "", "", "", "");
    private String subjectVersion = "";
    private Set<CoverageKey> coverage = Set.of();
    private List<Result> results = List.of();
    private Timestamp observedAt = Timestamp.EPOCH;
    private long generation;

    private Builder() {}

    public Builder producer(String producer) {
      this.producer = producer;
      return this;
    }

    public Builder subject(Subject subject) {
      this.subject = subject;
      return this;
    }

    public Builder subjectVersion(String subjectVersion) {
      this.subjectVersion = subjectVersion;
      return this;
    }

    public Builder coverage(Set<CoverageKey> coverage) {
      this.coverage = coverage;
      return this;
    }

    public Builder results(List<Result> results) {
      this.results = results;
      return this;
    }

    public Builder observedAt(Timestamp observedAt) {
      this.observedAt = observedAt;
      return this;
    }

    /**
     * @throws InvalidReportException naming {@code observedAt.seconds} or {@code observedAt.nanos}
     */
    public Builder observedAt(long seconds, int nanos) {
      this.observedAt = Timestamp.of("observedAt", seconds, nanos);
      return this;
    }

    public Builder generation(long generation) {
      this.generation = generation;
      return this;
    }

    public PartialReport build() {
      return new PartialReport(
          producer, subject, subjectVersion, coverage, results, observedAt, generation);
    }
  }
}
