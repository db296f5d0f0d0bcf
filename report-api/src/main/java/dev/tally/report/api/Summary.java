package dev.tally.report.api;

import java.util.Collection;

/** Counts of results by status, as the {@code summary} field of both formats. */
public record Summary(int pass, int fail, int warn, int error, int skip) {
  public static final Summary EMPTY = new Summary(0, 0, 0, 0, 0);

  public Summary {
    if (pass < 0 || fail < 0 || warn < 0 || error < 0 || skip < 0) {
      throw new InvalidReportException("summary", "counts must not be negative");
    }
  }

  /** The counts of {@code results} by status. */
  public static Summary of(Collection<Result> results) {
    int[] c = new int[ResultStatus.values().length];
    for (Result r : InvalidReportException.requireNoNulls("results", results)) {
      c[r.status().ordinal()]++;
    }
    return new Summary(c[0], c[1], c[2], c[3], c[4]);
  }

  public int count(ResultStatus status) {
    return switch (status) {
      case PASS -> pass;
      case FAIL -> fail;
      case WARN -> warn;
      case ERROR -> error;
      case SKIP -> skip;
    };
  }

  public int total() {
    return pass + fail + warn + error + skip;
  }
}
