package dev.tally.report.api;

/**
 * A cap of {@link InputCaps} would be exceeded: one producer or tenant is sending more than the
 * aggregator agreed to hold. Nothing was applied; the caller decides whether to shed, retry later
 * or raise the cap. Never a silent drop.
 */
public final class CapacityExceededException extends InvalidReportException {
  private static final long serialVersionUID = 1L;

  private final long limit;

  public CapacityExceededException(String field, String reason, long limit) {
    super(field, reason);
    this.limit = limit;
  }

  /** The cap that would have been exceeded. */
  public long limit() {
    return limit;
  }
}
