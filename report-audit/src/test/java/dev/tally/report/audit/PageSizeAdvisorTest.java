package dev.tally.report.audit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PageSizeAdvisorTest {
  private final PageSizeAdvisor advisor = PageSizeAdvisor.defaults();

  @Test
  void smallObjectsGetTheLargestPageAtFiveSeats() {
    int page = advisor.pageSize(1_000, 100_000);
    assertThat(page).isEqualTo(500);
    assertThat(advisor.seatsFor(page)).isEqualTo(5);
  }

  @Test
  void largeObjectsGetSmallerPagesButNeverBelowTheMinimum() {
    assertThat(advisor.pageSize(20_000, 100_000)).isEqualTo(209); // 4 MiB / 20 kB
    assertThat(advisor.pageSize(1_000_000, 100_000)).isEqualTo(50);
  }

  @Test
  void aSmallUnitIsOnePage() {
    assertThat(advisor.pageSize(1_000, 120)).isEqualTo(120);
    assertThat(advisor.pageSize(1_000, 3)).isEqualTo(50);
  }

  @Test
  void pagesAlwaysStayInRangeAndCheap() {
    for (long bytes = 1; bytes < 10_000_000; bytes *= 3) {
      for (long weight = 1; weight < 10_000_000; weight *= 7) {
        int page = advisor.pageSize(bytes, weight);
        assertThat(page).isBetween(50, 500);
        assertThat(advisor.seatsFor(page)).isLessThanOrEqualTo(5);
      }
    }
  }
}
