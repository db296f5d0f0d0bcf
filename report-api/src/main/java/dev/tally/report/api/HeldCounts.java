package dev.tally.report.api;

/**
 * What an aggregator holds, counted as its {@link InputCaps} count it.
 *
 * @param registers registers held, those without results (coverage retractions) included
 * @param results results held, visible or not
 * @param producers distinct (namespace, producer) pairs holding registers
 * @param tombstones deleted subjects remembered
 * @param tombstonesForgotten deletions forgotten before their retention ended because {@link
 *     InputCaps#maxTombstones()} was reached, since the aggregator was built
 */
public record HeldCounts(
    long registers, long results, long producers, long tombstones, long tombstonesForgotten) {}
