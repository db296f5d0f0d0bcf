package dev.tally.report.api;

/**
 * Caps that bound what the aggregator holds, so that one runaway producer or tenant can neither
 * exhaust the memory nor use up what the others may hold. Every entry the state keeps is counted:
 * registers without results (a coverage retraction), producers, results and tombstones. Hitting a
 * cap of a partial report throws {@link CapacityExceededException} naming the cap and applies
 * nothing; the tombstone cap cannot refuse a deletion, so it forgets the oldest tombstones early
 * (see {@link #maxTombstones}).
 *
 * <p>The caps of a namespace count only what that namespace holds ("" is the cluster scope), so no
 * tenant can use up another's; the process-wide caps ({@code maxResults}, {@code maxRegisters},
 * {@code maxTombstones}) bound the sum over every namespace.
 *
 * @param maxResultsPerPartial most results in one partial report
 * @param maxSubjectsPerProducer most distinct subjects one producer may hold registers for within
 *     one namespace
 * @param maxResultsPerNamespace most results held for one namespace
 * @param maxCoveragePerPartial most (source, policy) keys one partial report may cover (each key is
 *     a register, with results or without)
 * @param maxRegistersPerNamespace most registers held for one namespace, empty ones (a coverage
 *     retraction) included
 * @param maxProducersPerNamespace most distinct producers holding registers in one namespace
 * @param maxResults most results held in all
 * @param maxRegisters most registers held in all, empty ones included
 * @param maxTombstones most deleted subjects remembered; past it the oldest deletions are forgotten
 *     before their retention ends
 */
public record InputCaps(
    int maxResultsPerPartial,
    int maxSubjectsPerProducer,
    int maxResultsPerNamespace,
    int maxCoveragePerPartial,
    int maxRegistersPerNamespace,
    int maxProducersPerNamespace,
    long maxResults,
    long maxRegisters,
    int maxTombstones) {
  public InputCaps {
    atLeastOne("caps.maxResultsPerPartial", maxResultsPerPartial);
    atLeastOne("caps.maxSubjectsPerProducer", maxSubjectsPerProducer);
    atLeastOne("caps.maxResultsPerNamespace", maxResultsPerNamespace);
    atLeastOne("caps.maxCoveragePerPartial", maxCoveragePerPartial);
    atLeastOne("caps.maxRegistersPerNamespace", maxRegistersPerNamespace);
    atLeastOne("caps.maxProducersPerNamespace", maxProducersPerNamespace);
    atLeastOne("caps.maxResults", maxResults);
    atLeastOne("caps.maxRegisters", maxRegisters);
    atLeastOne("caps.maxTombstones", maxTombstones);
  }

  /**
   * The three caps of earlier versions; the others are the defaults.
   *
   * @deprecated name every cap, or start from {@link #defaults()}
   */
  @Deprecated
  public InputCaps(
      int maxResultsPerPartial, int maxSubjectsPerProducer, int maxResultsPerNamespace) {
    this(
        maxResultsPerPartial,
        maxSubjectsPerProducer,
        maxResultsPerNamespace,
        DEFAULT_COVERAGE_PER_PARTIAL,
        DEFAULT_REGISTERS_PER_NAMESPACE,
        DEFAULT_PRODUCERS_PER_NAMESPACE,
        DEFAULT_RESULTS,
        DEFAULT_REGISTERS,
        DEFAULT_TOMBSTONES);
  }

  private static final int DEFAULT_COVERAGE_PER_PARTIAL = 5_000;
  private static final int DEFAULT_REGISTERS_PER_NAMESPACE = 1_000_000;
  private static final int DEFAULT_PRODUCERS_PER_NAMESPACE = 1_000;
  private static final long DEFAULT_RESULTS = 2_000_000;
  private static final long DEFAULT_REGISTERS = 4_000_000;
  private static final int DEFAULT_TOMBSTONES = 1_000_000;

  private static void atLeastOne(String field, long value) {
    if (value < 1) {
      throw new InvalidReportException(field, "must be at least 1, was " + value);
    }
  }

  /**
   * Per partial report 5,000 results and 5,000 covered keys; per namespace 1,000,000 subjects per
   * producer, 500,000 results, 1,000,000 registers and 1,000 producers; in all 2,000,000 results,
   * 4,000,000 registers and 1,000,000 tombstones.
   */
  public static InputCaps defaults() {
    return new InputCaps(
        5_000,
        1_000_000,
        500_000,
        DEFAULT_COVERAGE_PER_PARTIAL,
        DEFAULT_REGISTERS_PER_NAMESPACE,
        DEFAULT_PRODUCERS_PER_NAMESPACE,
        DEFAULT_RESULTS,
        DEFAULT_REGISTERS,
        DEFAULT_TOMBSTONES);
  }

  public InputCaps withMaxResultsPerPartial(int max) {
    return new InputCaps(
        max,
        maxSubjectsPerProducer,
        maxResultsPerNamespace,
        maxCoveragePerPartial,
        maxRegistersPerNamespace,
        maxProducersPerNamespace,
        maxResults,
        maxRegisters,
        maxTombstones);
  }

  public InputCaps withMaxSubjectsPerProducer(int max) {
    return new InputCaps(
        maxResultsPerPartial,
        max,
        maxResultsPerNamespace,
        maxCoveragePerPartial,
        maxRegistersPerNamespace,
        maxProducersPerNamespace,
        maxResults,
        maxRegisters,
        maxTombstones);
  }

  public InputCaps withMaxResultsPerNamespace(int max) {
    return new InputCaps(
        maxResultsPerPartial,
        maxSubjectsPerProducer,
        max,
        maxCoveragePerPartial,
        maxRegistersPerNamespace,
        maxProducersPerNamespace,
        maxResults,
        maxRegisters,
        maxTombstones);
  }

  public InputCaps withMaxCoveragePerPartial(int max) {
    return new InputCaps(
        maxResultsPerPartial,
        maxSubjectsPerProducer,
        maxResultsPerNamespace,
        max,
        maxRegistersPerNamespace,
        maxProducersPerNamespace,
        maxResults,
        maxRegisters,
        maxTombstones);
  }

  public InputCaps withMaxRegistersPerNamespace(int max) {
    return new InputCaps(
        maxResultsPerPartial,
        maxSubjectsPerProducer,
        maxResultsPerNamespace,
        maxCoveragePerPartial,
        max,
        maxProducersPerNamespace,
        maxResults,
        maxRegisters,
        maxTombstones);
  }

  public InputCaps withMaxProducersPerNamespace(int max) {
    return new InputCaps(
        maxResultsPerPartial,
        maxSubjectsPerProducer,
        maxResultsPerNamespace,
        maxCoveragePerPartial,
        maxRegistersPerNamespace,
        max,
        maxResults,
        maxRegisters,
        maxTombstones);
  }

  public InputCaps withMaxResults(long max) {
    return new InputCaps(
        maxResultsPerPartial,
        maxSubjectsPerProducer,
        maxResultsPerNamespace,
        maxCoveragePerPartial,
        maxRegistersPerNamespace,
        maxProducersPerNamespace,
        max,
        maxRegisters,
        maxTombstones);
  }

  public InputCaps withMaxRegisters(long max) {
    return new InputCaps(
        maxResultsPerPartial,
        maxSubjectsPerProducer,
        maxResultsPerNamespace,
        maxCoveragePerPartial,
        maxRegistersPerNamespace,
        maxProducersPerNamespace,
        maxResults,
        max,
        maxTombstones);
  }

  public InputCaps withMaxTombstones(int max) {
    return new InputCaps(
        maxResultsPerPartial,
        maxSubjectsPerProducer,
        maxResultsPerNamespace,
        maxCoveragePerPartial,
        maxRegistersPerNamespace,
        maxProducersPerNamespace,
        maxResults,
        maxRegisters,
        max);
  }
}
