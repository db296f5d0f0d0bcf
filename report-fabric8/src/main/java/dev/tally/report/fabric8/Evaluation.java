package dev.tally.report.fabric8;

import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import java.util.List;
import java.util.Set;

/**
 * A producer's evaluation of one subject, as a producer publishes it: a {@link PartialReport} whose
 * subject may not have a uid yet (an admission webhook sees a CREATE before the object exists).
 * Such an evaluation is written without an owner and adopted once the subject exists; the
 * aggregator only sees it from then on.
 *
 * <p>Validated at construction exactly as a {@link PartialReport} is, the uid aside.
 */
public record Evaluation(
    String producer,
    Subject subject,
    String subjectVersion,
    Set<CoverageKey> coverage,
    List<Result> results,
    Timestamp observedAt,
    long generation) {

  /** Stands in for a missing uid while validating; never written or applied. */
  private static final String PLACEHOLDER_UID = "tally-pending-uid";

  public Evaluation {
    coverage = Set.copyOf(coverage);
    results = List.copyOf(results);
    build(producer, subject, subjectVersion, coverage, results, observedAt, generation);
  }

  /** The evaluation a partial report states. */
  public static Evaluation of(PartialReport partial) {
    return new Evaluation(
        partial.producer(),
        partial.subject(),
        partial.subjectVersion(),
        partial.coverage(),
        partial.results(),
        partial.observedAt(),
        partial.generation());
  }

  /** Whether the subject's uid is known, so the aggregator can use this evaluation. */
  public boolean adopted() {
    return !subject.uid().isEmpty();
  }

  /** The same evaluation about the subject once it has a uid. */
  public Evaluation withSubjectUid(String uid) {
    return new Evaluation(
        producer, subject.withUid(uid), subjectVersion, coverage, results, observedAt, generation);
  }

  /**
   * The partial report the aggregator applies.
   *
   * @throws InvalidReportException if the subject has no uid yet
   */
  public PartialReport toPartialReport() {
    if (!adopted()) {
      throw new InvalidReportException(
          "subject.uid", "is required; " + subject.display() + " has not been adopted yet");
    }
    return build(producer, subject, subjectVersion, coverage, results, observedAt, generation);
  }

  private static PartialReport build(
      String producer,
      Subject subject,
      String subjectVersion,
      Set<CoverageKey> coverage,
      List<Result> results,
      Timestamp observedAt,
      long generation) {
    Subject s = subject.uid().isEmpty() ? subject.withUid(PLACEHOLDER_UID) : subject;
    return new PartialReport(
        producer, s, subjectVersion, coverage, results, observedAt, generation);
  }
}
