package dev.tally.report.merge.publish;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.merge.EvaluationOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a publisher writes over the one partial report object of a (producer, subject): the rules of
 * docs/DESIGN.md §7 ("Publisher"), decided here so that the adapter only reads and writes.
 */
public final class Publication {
  private Publication() {}

  /**
   * The partial report to write where the cluster holds {@code current} (null: no object yet), or
   * nothing when {@code current} already states {@code wanted} or something later in {@link
   * EvaluationOrder}. A later evaluation made before the subject had a uid keeps the uid the object
   * was adopted with.
   */
  public static Optional<PartialReport> toWrite(
      @Nullable PartialReport current, PartialReport wanted) {
    InvalidReportException.requireNonNull("wanted", wanted);
    if (current == null) {
      return Optional.of(wanted);
    }
    PartialReport evaluation = wanted;
    if (current.adopted() && !evaluation.adopted()) {
      evaluation = evaluation.withSubjectUid(current.subject().uid());
    }
    int order = EvaluationOrder.compare(current, evaluation);
    if (order > 0 || (order == 0 && current.equals(evaluation))) {
      return Optional.empty();
    }
    return Optional.of(evaluation);
  }

  /**
   * Whether a partial report written at {@code pendingSince} without a uid has waited for its
   * subject longer than {@code grace} at {@code now}, and is to be removed. A time that cannot be
   * read ({@code null} is "not pending") counts as expired: nothing else would ever remove it.
   */
  public static boolean adoptionExpired(
      @Nullable String pendingSince, Duration grace, Instant now) {
    if (pendingSince == null) {
      return false;
    }
    try {
      return Instant.parse(pendingSince).plus(grace).isBefore(now);
    } catch (java.time.format.DateTimeParseException e) {
      return true;
    }
  }
}
