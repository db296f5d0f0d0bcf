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
 * {@code maxResultBytes}, {@code maxTombstones}) bound the sum over every namespace, which the
 * namespaces share fairly ({@link FairShare}): past a process-wide cap a namespace over its fair
 * share is refused, one within it is not, and tombstones are forgotten first in the namespace
 * holding the most.
 *
 * <p>Results are counted in bytes too: a result's bytes are its encoded size (as it is written in a
 * report), so a few results of the largest size cannot hold what the count caps meant for millions
 * of small ones.
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
 * @param maxTombstones most deleted subjects remembered; past it the oldest deletions of the
 *     namespace remembering the most are forgotten before their retention ends
 * @param maxResultBytesPerNamespace most bytes of results held for one namespace, each result
 *     counted at its encoded size
 * @param maxResultBytes most bytes of results held in all
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
    int maxTombstones,
    long maxResultBytesPerNamespace,
    long maxResultBytes) {
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
    atLeastOne("caps.maxResultBytesPerNamespace", maxResultBytesPerNamespace);
    atLeastOne("caps.maxResultBytes", maxResultBytes);
  }

  /**
   * The nine caps of earlier versions; the byte caps are the defaults.
   *
   * @deprecated name every cap, or start from {@link #defaults()}
   */
  @Deprecated
  public InputCaps(
      int maxResultsPerPartial,
      int maxSubjectsPerProducer,
      int maxResultsPerNamespace,
      int maxCoveragePerPartial,
      int maxRegistersPerNamespace,
      int maxProducersPerNamespace,
      long maxResults,
      long maxRegisters,
      int maxTombstones) {
    this(
        maxResultsPerPartial,
        maxSubjectsPerProducer,
        maxResultsPerNamespace,
        maxCoveragePerPartial,
        maxRegistersPerNamespace,
        maxProducersPerNamespace,
        maxResults,
        maxRegisters,
        maxTombstones,
        DEFAULT_RESULT_BYTES_PER_NAMESPACE,
        DEFAULT_RESULT_BYTES);
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
        DEFAULT_TOMBSTONES,
        DEFAULT_RESULT_BYTES_PER_NAMESPACE,
        DEFAULT_RESULT_BYTES);
  }

  private static final int DEFAULT_COVERAGE_PER_PARTIAL = 5_000;
  private static final int DEFAULT_REGISTERS_PER_NAMESPACE = 1_000_000;
  private static final int DEFAULT_PRODUCERS_PER_NAMESPACE = 1_000;
  private static final long DEFAULT_RESULTS = 1_000_000;
  private static final long DEFAULT_REGISTERS = 2_000_000;
  private static final int DEFAULT_TOMBSTONES = 1_000_000;
  private static final long DEFAULT_RESULT_BYTES_PER_NAMESPACE = 64L << 20;
  private static final long DEFAULT_RESULT_BYTES = 128L << 20;

  private static void atLeastOne(String field, long value) {
    if (value < 1) {
      throw new InvalidReportException(field, "must be at least 1, was " + value);
    }
  }

  /**
   * Per partial report 5,000 results and 5,000 covered keys; per namespace 1,000,000 subjects per
   * producer, 500,000 results (64 MiB of them), 1,000,000 registers and 1,000 producers; in all
   * 1,000,000 results (128 MiB of them), 2,000,000 registers and 1,000,000 tombstones. The caps in
   * all are shared fairly ({@link FairShare}), so the process may hold up to twice them: 2,000,000
   * results, 256 MiB of them, and 4,000,000 registers, what the caps in all were before they were
   * shared.
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
        DEFAULT_TOMBSTONES,
        DEFAULT_RESULT_BYTES_PER_NAMESPACE,
        DEFAULT_RESULT_BYTES);
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
        maxTombstones,
        maxResultBytesPerNamespace,
        maxResultBytes);
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
        maxTombstones,
        maxResultBytesPerNamespace,
        maxResultBytes);
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
        maxTombstones,
        maxResultBytesPerNamespace,
        maxResultBytes);
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
        maxTombstones,
        maxResultBytesPerNamespace,
        maxResultBytes);
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
        maxTombstones,
        maxResultBytesPerNamespace,
        maxResultBytes);
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
        maxTombstones,
        maxResultBytesPerNamespace,
        maxResultBytes);
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
        maxTombstones,
        maxResultBytesPerNamespace,
        maxResultBytes);
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
        maxTombstones,
        maxResultBytesPerNamespace,
        maxResultBytes);
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
        max,
        maxResultBytesPerNamespace,
        maxResultBytes);
  }

  public InputCaps withMaxResultBytesPerNamespace(long max) {
    return new InputCaps(
        maxResultsPerPartial,
        maxSubjectsPerProducer,
        maxResultsPerNamespace,
        maxCoveragePerPartial,
        maxRegistersPerNamespace,
        maxProducersPerNamespace,
        maxResults,
        maxRegisters,
        maxTombstones,
        max,
        maxResultBytes);
  }

  public InputCaps withMaxResultBytes(long max) {
    return new InputCaps(
        maxResultsPerPartial,
        maxSubjectsPerProducer,
        maxResultsPerNamespace,
        maxCoveragePerPartial,
        maxRegistersPerNamespace,
        maxProducersPerNamespace,
        maxResults,
        maxRegisters,
        maxTombstones,
        maxResultBytesPerNamespace,
        max);
  }
}
