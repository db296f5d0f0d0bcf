/**
 * Planning of a distributed policy audit: weighted work units, a shard plan every member computes
 * alike from the membership, a run ledger that merges per-member status as a state-based CRDT, the
 * API budget and LIST page sizes, and a simulation of run completion.
 *
 * <p>Pure: no I/O, no clock (instants and nanosecond readings come in as arguments), no threads, no
 * Kubernetes client types. Every result is a function of the arguments, so every member of an audit
 * group computes the same thing from the same inputs.
 */
@NullMarked
package dev.tally.report.audit;

import org.jspecify.annotations.NullMarked;
