package dev.tally.report.demo;

/**
 * One cell of the completion table: for {@code members} members that each fail during a run with
 * probability {@code failureRate}, the share of simulated runs that completed.
 *
 * @param members the number of members
 * @param failureRate the probability that one member fails during one run
 * @param staticExact {@code (1 - failureRate)^members}: static sharding needs every shard
 * @param staticSimulated the simulated share of runs static sharding completed
 * @param tallySimulated the simulated share of runs completed with reassignment
 * @param trials how many runs were simulated
 */
record CompletionRow(
    int members,
    double failureRate,
    double staticExact,
    double staticSimulated,
    double tallySimulated,
    int trials) {}
