package dev.tally.report.bench;

import dev.tally.report.api.PartialReport;
import java.util.List;
import java.util.Locale;

/**
 * How a benchmark hands the reference workload's partial reports to each measured invocation.
 *
 * <p>The difference matters because {@link String} caches its hash code: once an aggregation has
 * hashed a string, every later look-up of that same object is free. An informer decodes new objects
 * for every event, so only {@link #FRESH} measures what a decoder hands over; {@link #REUSED} is
 * what the benchmarks measured before issue 10.
 */
public enum Inputs {
  /**
   * A new copy of the decoded workload for every invocation, made outside the measured time ({@link
   * FreshCopy}): new strings with their own characters and no cached hash, new subjects,
   * timestamps, results and partial reports.
   */
  FRESH,
  /**
   * The same decoded objects ({@link StringSharing#DECODED}) for every invocation: from the second
   * invocation on, their strings' hash codes are cached.
   */
  REUSED,
  /** One shared instance of each equal value ({@link StringSharing#SHARED}), reused. */
  SHARED;

  /** The inputs named {@code name} (case-insensitive), as a JMH parameter or a flag gives it. */
  public static Inputs named(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }

  /** The string sharing of the generated workload these inputs start from. */
  public StringSharing sharing() {
    return this == SHARED ? StringSharing.SHARED : StringSharing.DECODED;
  }

  /** The reference workload at {@code results} results, generated for these inputs. */
  public ReferenceWorkload generate(int results) {
    return ReferenceWorkload.generate(
        WorkloadShape.reference(results), ReferenceWorkload.SEED, sharing());
  }

  /** What the next invocation gets from the {@code generated} partial reports. */
  public List<PartialReport> next(List<PartialReport> generated) {
    return this == FRESH ? FreshCopy.of(generated) : generated;
  }
}
