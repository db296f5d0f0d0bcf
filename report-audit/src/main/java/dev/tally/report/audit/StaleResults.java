package dev.tally.report.audit;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import dev.tally.report.api.WireNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Results of a unit that cannot be audited any more are kept, but say so: every result of the
 * unit's last audit partial reports gets the property {@value
 * dev.tally.report.api.WireNames#STALE_PROPERTY} with the failure as its value, and so do the
 * aggregates the merge makes of them.
 *
 * <p>The stale copy of a partial report is ordered right after it ({@code observedAt} kept, {@code
 * generation + 1}, same producer; see the order of evaluations in docs/DESIGN.md §5): it replaces
 * the original in the merge, and every later evaluation of the subject (any producer's, with a
 * later {@code observedAt}) replaces it, so the next successful audit clears the mark and a stale
 * copy can never undo what was evaluated after the original.
 */
public final class StaleResults {

  private StaleResults() {}

  /**
   * Whether {@code partial} is one of the unit's audit results: written by {@code producer} (the
   * audit group's, {@code audit/<group>}) about an object of the unit's kind and, for a namespace
   * unit, in its namespace.
   */
  public static boolean isOfUnit(PartialReport partial, WorkUnit unit, String producer) {
    var subject = partial.subject();
    return partial.producer().equals(producer)
        && subject.kind().equals(unit.gvk().kind())
        && subject.apiVersion().equals(unit.gvk().apiVersion())
        && (unit.wholeKind() || subject.namespace().equals(unit.namespace()));
  }

  /** Whether every result of {@code partial} is marked stale (a partial without results is not). */
  public static boolean isStale(PartialReport partial) {
    return !partial.results().isEmpty()
        && partial.results().stream()
            .allMatch(r -> r.properties().containsKey(WireNames.STALE_PROPERTY));
  }

  /**
   * The partial report to republish for a unit's last audit result {@code last} once the unit has
   * become stale: its results marked with {@code reason} (a result already marked keeps its
   * reason), ordered right after {@code last}. Empty when there is nothing to mark: {@code last} is
   * not one of the unit's ({@link #isOfUnit}), has no results (nothing to keep), or is already
   * {@link #isStale stale}.
   *
   * @param reason why the unit cannot be audited; blank becomes {@code unknown failure}, longer
   *     than {@link UnitStatus#MAX_REASON} is cut
   * @throws InvalidReportException if {@code last}'s generation is {@link Long#MAX_VALUE} (nothing
   *     can be ordered right after it), or a result has no room for one more property
   */
  public static Optional<PartialReport> staleCopy(
      PartialReport last, WorkUnit unit, String producer, String reason) {
    if (!isOfUnit(last, unit, producer) || last.results().isEmpty() || isStale(last)) {
      return Optional.empty();
    }
    if (last.generation() == Long.MAX_VALUE) {
      throw new InvalidReportException(
          "generation", "is " + Long.MAX_VALUE + "; no stale copy can be ordered after it");
    }
    String why = UnitStatus.failureReason(reason);
    List<Result> marked = new ArrayList<>(last.results().size());
    for (int i = 0; i < last.results().size(); i++) {
      Result r = last.results().get(i);
      if (r.properties().containsKey(WireNames.STALE_PROPERTY)) {
        marked.add(r);
        continue;
      }
      TreeMap<String, String> properties = new TreeMap<>(r.properties());
      properties.put(WireNames.STALE_PROPERTY, why);
      try {
        marked.add(r.toBuilder().properties(properties).build());
      } catch (InvalidReportException e) {
        throw e.under("results[" + i + "]");
      }
    }
    return Optional.of(
        new PartialReport(
            last.producer(),
            last.subject(),
            last.subjectVersion(),
            last.coverage(),
            marked,
            last.observedAt(),
            last.generation() + 1));
  }

  /** The reason a stale result carries, if it is marked. */
  public static Optional<String> reasonOf(Result result) {
    return Optional.ofNullable(result.properties().get(WireNames.STALE_PROPERTY));
  }
}
