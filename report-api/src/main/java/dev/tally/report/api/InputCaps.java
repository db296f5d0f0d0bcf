package dev.tally.report.api;

/**
 * Caps that protect the aggregator from one runaway producer or tenant. Hitting one throws {@link
 * CapacityExceededException} and applies nothing.
 *
 * @param maxResultsPerPartial most results in one partial report
 * @param maxSubjectsPerProducer most distinct subjects one producer may hold registers for within
 *     one namespace (caps are counted per namespace, so no tenant can use up another's)
 * @param maxResultsPerNamespace most results held for one namespace ("" is the cluster scope)
 */
public record InputCaps(
    int maxResultsPerPartial, int maxSubjectsPerProducer, int maxResultsPerNamespace) {
  public InputCaps {
    if (maxResultsPerPartial < 1) {
      throw new InvalidReportException("caps.maxResultsPerPartial", "must be at least 1");
    }
    if (maxSubjectsPerProducer < 1) {
      throw new InvalidReportException("caps.maxSubjectsPerProducer", "must be at least 1");
    }
    if (maxResultsPerNamespace < 1) {
      throw new InvalidReportException("caps.maxResultsPerNamespace", "must be at least 1");
    }
  }

  /** 5,000 results per partial, 1,000,000 subjects per producer, 500,000 results per namespace. */
  public static InputCaps defaults() {
    return new InputCaps(5_000, 1_000_000, 500_000);
  }

  public InputCaps withMaxResultsPerPartial(int max) {
    return new InputCaps(max, maxSubjectsPerProducer, maxResultsPerNamespace);
  }

  public InputCaps withMaxSubjectsPerProducer(int max) {
    return new InputCaps(maxResultsPerPartial, max, maxResultsPerNamespace);
  }

  public InputCaps withMaxResultsPerNamespace(int max) {
    return new InputCaps(maxResultsPerPartial, maxSubjectsPerProducer, max);
  }
}
