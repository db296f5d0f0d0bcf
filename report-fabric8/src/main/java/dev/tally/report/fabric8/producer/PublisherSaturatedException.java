package dev.tally.report.fabric8.producer;

/**
 * The publisher holds as many pending writes as it may: this evaluation was not accepted. The
 * caller decides whether to wait, retry later or shed; Tally never drops one silently.
 */
public final class PublisherSaturatedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int limit;

  PublisherSaturatedException(int limit) {
    super("the publisher already holds " + limit + " pending partial reports");
    this.limit = limit;
  }

  /** The most pending writes the publisher holds. */
  public int limit() {
    return limit;
  }
}
