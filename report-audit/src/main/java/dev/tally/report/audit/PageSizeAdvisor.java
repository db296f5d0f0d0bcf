package dev.tally.report.audit;

/**
 * Chooses the {@code limit} of each LIST page so that a page stays cheap for API Priority and
 * Fairness. kube-apiserver's default work estimator charges a LIST about one seat per 100 objects
 * it expects to return (at least 1, at most 10 seats), and a page is also held in memory as a whole
 * on both sides; so a page is capped both in seats and in bytes, and kept within [{@link #minPage},
 * {@link #maxPage}] so that small objects do not cost a request each.
 *
 * @param minPage the smallest page, such as 50
 * @param maxPage the largest page, such as 500
 * @param objectsPerSeat objects one APF seat covers, 100 in kube-apiserver's defaults
 * @param maxSeatsPerPage the most seats one page may occupy
 * @param maxPageBytes the most bytes one page should carry
 */
public record PageSizeAdvisor(
    int minPage, int maxPage, int objectsPerSeat, int maxSeatsPerPage, long maxPageBytes) {
  public PageSizeAdvisor {
    if (minPage < 1 || maxPage < minPage) {
      throw new IllegalArgumentException(
          "need 1 <= minPage <= maxPage, was " + minPage + ".." + maxPage);
    }
    if (objectsPerSeat < 1 || maxSeatsPerPage < 1 || maxPageBytes < 1) {
      throw new IllegalArgumentException(
          "objectsPerSeat, maxSeatsPerPage, maxPageBytes must be >= 1");
    }
  }

  /** Pages of 50 to 500 objects, at most 5 seats and 4 MiB each. */
  public static PageSizeAdvisor defaults() {
    return new PageSizeAdvisor(50, 500, 100, 5, 4L << 20);
  }

  /**
   * The page size for a unit.
   *
   * @param estimatedObjectBytes the typical encoded size of one object of the kind, at least 1
   * @param unitWeight the unit's estimated object count; a smaller unit gets one page that fits it
   */
  public int pageSize(long estimatedObjectBytes, long unitWeight) {
    long bySeats = (long) objectsPerSeat * maxSeatsPerPage;
    long byBytes = maxPageBytes / Math.max(1, estimatedObjectBytes);
    long page = Math.min(bySeats, byBytes);
    page = Math.min(page, Math.max(1, unitWeight));
    return (int) Math.max(minPage, Math.min(maxPage, page));
  }

  /** The seats kube-apiserver's default estimator would charge for a page of {@code limit}. */
  public int seatsFor(int limit) {
    int seats = (limit + objectsPerSeat - 1) / objectsPerSeat;
    return Math.max(1, Math.min(10, seats));
  }
}
