package dev.tally.report.api;

/**
 * A cap of {@link InputCaps} would be exceeded: one producer or tenant is sending more than the
 * aggregator agreed to hold. Nothing was applied; the caller decides whether to shed, retry later
 * or raise the cap. Never a silent drop. The message names the cap ({@code cap maxResults...}) and
 * its limit, so that an Event made of it tells an operator which setting was reached.
 */
public final class CapacityExceededException extends InvalidReportException {
  private static final long serialVersionUID = 1L;

  private final long limit;
  private final String cap;

  /** A cap named like its field: {@code field} is also {@link #cap()}. */
  public CapacityExceededException(String field, String reason, long limit) {
    this(field, reason, limit, field);
  }

  /**
   * @param cap the name of the cap, a component of {@link InputCaps} such as {@code
   *     maxRegistersPerNamespace}
   */
  public CapacityExceededException(String field, String reason, long limit, String cap) {
    super(field, reason);
    this.limit = limit;
    this.cap = Checks.nonNull("cap", cap);
  }

  /** The cap that would have been exceeded. */
  public long limit() {
    return limit;
  }

  /** The name of the cap that would have been exceeded, a component of {@link InputCaps}. */
  public String cap() {
    return cap;
  }
}
