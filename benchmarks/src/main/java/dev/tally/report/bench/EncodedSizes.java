package dev.tally.report.bench;

import dev.tally.report.api.AggregateReport;
import dev.tally.report.api.EncodedSize;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.Result;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link EncodedSize} and {@link PartialSize} with each result's size remembered by identity: the
 * cost model writes the same result objects over and over (a rescan that finds nothing new reuses
 * them), and counting a namespace report's bytes anew on every update would dominate its run time.
 * Gives exactly the figures of the uncached functions.
 */
final class EncodedSizes {
  private final Map<Result, Integer> results = new IdentityHashMap<>();

  int of(Result r) {
    Integer size = results.get(r);
    if (size == null) {
      size = EncodedSize.of(r);
      results.put(r, size);
    }
    return size;
  }

  long of(AggregateReport report) {
    var empty =
        new AggregateReport(
            report.ref(),
            report.labels(),
            report.scope(),
            report.owner(),
            report.configuration(),
            List.of(),
            report.summary(),
            report.contentHash());
    return EncodedSize.of(empty) + resultsArray(report.results()) - 2;
  }

  long of(PartialReport p) {
    return PartialSize.envelopeBytes(p) + resultsArray(p.results());
  }

  /** The bytes of a JSON array of these results: brackets, commas and the objects. */
  private long resultsArray(List<Result> list) {
    long bytes = 2;
    for (int i = 0; i < list.size(); i++) {
      bytes += of(list.get(i)) + (i == 0 ? 0 : 1);
    }
    return bytes;
  }
}
