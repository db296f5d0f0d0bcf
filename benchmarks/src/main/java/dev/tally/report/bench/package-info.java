/**
 * JMH benchmarks of the performance budgets in docs/DESIGN.md, the hand-written baseline they are
 * compared with, the retained-heap measurement and the cluster cost model of report layouts.
 *
 * <p>Every workload is generated from a fixed seed, so two runs measure the same thing.
 */
@NullMarked
package dev.tally.report.bench;

import org.jspecify.annotations.NullMarked;
