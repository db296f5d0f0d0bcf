package dev.tally.report.api;

/** One write that brings a cluster closer to the desired aggregates. */
public sealed interface Change permits Change.Create, Change.Update, Change.Delete {

  /** The object written. */
  ReportRef ref();

  /** Create an object that does not exist yet. */
  record Create(AggregateReport report) implements Change {
    public Create {
      Checks.nonNull("report", report);
    }

    @Override
    public ReportRef ref() {
      return report.ref();
    }
  }

  /**
   * Replace the content of an existing object.
   *
   * @param previousHash the content hash the writer expects to find, for optimistic checks
   */
  record Update(AggregateReport report, String previousHash) implements Change {
    public Update {
      Checks.nonNull("report", report);
      Checks.nonNull("previousHash", previousHash);
    }

    @Override
    public ReportRef ref() {
      return report.ref();
    }
  }

  /** Delete an object Tally owns that is no longer desired. */
  record Delete(ReportRef ref, String previousHash) implements Change {
    public Delete {
      Checks.nonNull("ref", ref);
      Checks.nonNull("previousHash", previousHash);
    }
  }
}
