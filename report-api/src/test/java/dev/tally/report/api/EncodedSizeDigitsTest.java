package dev.tally.report.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EncodedSizeDigitsTest {
  @Test
  void digitsIsTheLengthOfTheDecimalString() {
    long[] values = {
      0,
      1,
      9,
      10,
      99,
      100,
      999_999_999,
      1_000_000_000,
      1_700_000_000L,
      253_402_300_799L,
      Long.MAX_VALUE,
      -1,
      -10,
      Long.MIN_VALUE,
      Long.MIN_VALUE + 1
    };
    for (long v : values) {
      assertThat(EncodedSize.digits(v)).as("%d", v).isEqualTo(Long.toString(v).length());
    }
    for (long v = 1; v > 0 && v < Long.MAX_VALUE / 3; v = v * 3 + 1) {
      assertThat(EncodedSize.digits(v)).as("%d", v).isEqualTo(Long.toString(v).length());
    }
  }
}
