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
 * @param resultBytes bytes of results held, each at its encoded size ({@link
 *     InputCaps#maxResultBytes()})
 */
public record HeldCounts(
    long registers,
    long results,
    long producers,
    long tombstones,
    long tombstonesForgotten,
    long resultBytes) {

  /**
   * The counts of earlier versions, without bytes.
   *
   * @deprecated name the bytes too
   */
  @Deprecated
  public HeldCounts(
      long registers, long results, long producers, long tombstones, long tombstonesForgotten) {
    this(registers, results, producers, tombstones, tombstonesForgotten, 0);
  }
}
