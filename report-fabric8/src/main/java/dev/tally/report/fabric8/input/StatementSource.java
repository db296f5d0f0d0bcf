package dev.tally.report.fabric8.input;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.PartialReport;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * Statements that do not come one per Kubernetes object: a file a producer wrote, a run that states
 * many subjects at once (Gatekeeper's audit export). The controller asks it, on its aggregator
 * thread only, once as each term begins (after the informers' caches and the input's seeds are
 * applied, before the first diff, so that a rebuild writes what the source states and not a state
 * without it) and then every {@link #period} while it leads; what it answers is applied as the
 * partial reports of input objects are, each through the clock rule.
 *
 * <p>A source decides nothing about content: what a file or a run states is its input's pure
 * mapping's. It reads (the file system, or the cluster through the {@link InputContext}'s budgeted
 * calls) and says what is new; what it cannot read now it reads at a later poll, and applies
 * nothing of in between (a run read in part could retract what the rest shows).
 */
public interface StatementSource {
  /** How often {@link #poll} runs while the controller leads. */
  Duration period();

  /**
   * What is new since the last poll of this term: partial reports to apply, in order; empty when
   * nothing is.
   *
   * @param held the aggregates as the aggregator holds them now (what earlier polls and the seeds
   *     stated), computed only when asked: a source asks only when it has something to state
   */
  List<PartialReport> poll(Supplier<List<AggregateReport>> held);

  /** The term ended: the next poll is the first of a new term, against a fresh aggregator. */
  default void termEnded() {}
}
