package dev.tally.aggregator;

import dev.tally.aggregator.Options.UsageException;
import java.util.List;

/**
 * The flags of the API budget: the rate of requests to start at, the most it may grow to, the
 * burst, and how many writes are in flight at once.
 *
 * <p>One of the groups of flags that {@link Options} assembles into the command line: it declares
 * its flags and parses them from {@link FlagValues}.
 */
record BudgetOptions(double qps, double maxQps, int burst, int writeConcurrency) {
  static final List<Flag> FLAGS =
      List.of(
          Flag.of(
              "--qps",
              "N",
              "API requests per second to start at, all of Tally's; the rate grows while the API"
                  + " server answers and callers wait, and halves on 429; default 20"),
          Flag.of(
              "--max-qps",
              "N",
              "the most API requests per second the rate may grow to; equal to --qps for a fixed"
                  + " rate; default 300 (the fixed rate of Kyverno's reports controller), or --qps"
                  + " when that is higher"),
          Flag.of("--burst", "N", "API requests at once; default 40"),
          Flag.of(
              "--write-concurrency",
              "N",
              "report writes (and deletes of the input objects they retire) in flight at once, each"
                  + " within the same budget; default 8, 1 for one after the other"));

  /** Reads the flags; the ceiling is 300 or the starting rate if higher, and never below it. */
  static BudgetOptions parse(FlagValues v) {
    double qps = v.number("--qps", 20.0, Double::parseDouble, 0.001, 100_000.0);
    double maxQps =
        v.number("--max-qps", Math.max(300.0, qps), Double::parseDouble, 0.001, 100_000.0);
    if (maxQps < qps) {
      throw new UsageException("--max-qps", "must be at least --qps (" + qps + "), was " + maxQps);
    }
    return new BudgetOptions(
        qps,
        maxQps,
        v.number("--burst", 40, Integer::parseInt, 1, 100_000),
        // 64: the most the controller's builder takes (writeConcurrency)
        v.number("--write-concurrency", 8, Integer::parseInt, 1, 64));
  }
}
