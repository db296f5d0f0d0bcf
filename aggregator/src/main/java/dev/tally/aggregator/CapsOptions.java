package dev.tally.aggregator;

import dev.tally.report.api.InputCaps;
import java.util.List;

/**
 * The flags of the caps on what the aggregator holds: results (and their bytes), registers,
 * tombstones and producers ({@link InputCaps}, the library's defaults), and the refused input
 * objects the informers keep. The caps of one input alone are that input's ({@link
 * InputOption#capFlags()}).
 *
 * <p>One of the groups of flags that {@link Options} assembles into the command line: it declares
 * its flags and parses them from {@link FlagValues}.
 */
record CapsOptions(InputCaps caps, int maxRefusedCopies, int maxRefusedCopiesPerNamespace) {
  /** The caps of the aggregator's state. */
  static final List<Flag> STATE_FLAGS =
      List.of(
          Flag.of(
              "--max-results",
              "N",
              "most results held in all, shared fairly by namespaces: past it a namespace over its"
                  + " share is refused, one within it is not (up to twice the cap);"
                  + " default 1000000"),
          Flag.of(
              "--max-registers",
              "N",
              "most registers (subject and policy, with results or without) held in all;"
                  + " shared fairly by namespaces like --max-results; default 2000000"),
          Flag.of(
              "--max-result-bytes",
              "N",
              "most bytes of results held in all, each result at its encoded size;"
                  + " shared fairly by namespaces like --max-results; default 134217728 (128 MiB)"),
          Flag.of(
              "--max-tombstones",
              "N",
              "most deleted subjects remembered; past it the oldest of the namespace remembering"
                  + " the most are forgotten early; default 1000000"),
          Flag.of(
              "--max-results-per-namespace",
              "N",
              "most results held for one namespace; default 500000"),
          Flag.of(
              "--max-registers-per-namespace",
              "N",
              "most registers held for one namespace; default 1000000"),
          Flag.of(
              "--max-result-bytes-per-namespace",
              "N",
              "most bytes of results held for one namespace; default 67108864 (64 MiB)"),
          Flag.of(
              "--max-producers-per-namespace",
              "N",
              "most producers holding results in one namespace; default 1000"));

  /** The caps of the refused objects the informers hold. */
  static final List<Flag> REFUSED_FLAGS =
      List.of(
          Flag.of(
              "--max-refused-copies",
              "N",
              "most refused input objects the informers hold (each as its identity alone) in all;"
                  + " past it nothing is held for one; default 20000"),
          Flag.of(
              "--max-refused-copies-per-namespace",
              "N",
              "most refused input objects the informers hold in one namespace; default 1000"));

  static CapsOptions parse(FlagValues v) {
    InputCaps d = InputCaps.defaults();
    InputCaps caps =
        d.withMaxResults(
                v.number("--max-results", d.maxResults(), Long::parseLong, 1L, Long.MAX_VALUE))
            .withMaxRegisters(
                v.number("--max-registers", d.maxRegisters(), Long::parseLong, 1L, Long.MAX_VALUE))
            .withMaxResultBytes(
                v.number(
                    "--max-result-bytes", d.maxResultBytes(), Long::parseLong, 1L, Long.MAX_VALUE))
            .withMaxResultBytesPerNamespace(
                v.number(
                    "--max-result-bytes-per-namespace",
                    d.maxResultBytesPerNamespace(),
                    Long::parseLong,
                    1L,
                    Long.MAX_VALUE))
            .withMaxTombstones(v.count("--max-tombstones", d.maxTombstones()))
            .withMaxResultsPerNamespace(
                v.count("--max-results-per-namespace", d.maxResultsPerNamespace()))
            .withMaxRegistersPerNamespace(
                v.count("--max-registers-per-namespace", d.maxRegistersPerNamespace()))
            .withMaxProducersPerNamespace(
                v.count("--max-producers-per-namespace", d.maxProducersPerNamespace()));
    return new CapsOptions(
        caps,
        v.count("--max-refused-copies", 20_000),
        v.count("--max-refused-copies-per-namespace", 1_000));
  }
}
