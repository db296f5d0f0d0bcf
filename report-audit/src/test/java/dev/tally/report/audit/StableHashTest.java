package dev.tally.report.audit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StableHashTest {
  @Test
  void fnvStateMatchesThePublishedFnv1aVectors() {
    // FNV-1a 64 test vectors from the FNV reference: "" and "a"
    assertThat(StableHash.start()).isEqualTo(0xcbf29ce484222325L);
    assertThat(StableHash.fnv(StableHash.start(), "a")).isEqualTo(0xaf63dc4c8601ec8cL);
    assertThat(StableHash.fnv(StableHash.start(), "foobar")).isEqualTo(0x85944171f73967e8L);
  }

  @Test
  void mixIsTheSplitMix64Finalizer() {
    assertThat(StableHash.mix(0)).isZero();
    // a bijection: distinct inputs stay distinct, and nearby inputs land far apart
    long a = StableHash.mix(1);
    long b = StableHash.mix(2);
    assertThat(a).isNotEqualTo(b);
    assertThat(Long.bitCount(a ^ b)).isGreaterThan(16);
  }

  @Test
  void partsAreSeparated() {
    assertThat(StableHash.of("ab", "c")).isNotEqualTo(StableHash.of("a", "bc"));
    assertThat(StableHash.of("abc")).isNotEqualTo(StableHash.of("ab", "c"));
    assertThat(StableHash.of("member-1", "Pod.v1.core"))
        .isEqualTo(StableHash.of("member-1", "Pod.v1.core"));
  }

  @Test
  void nonAsciiIsHashedAsUtf8() {
    assertThat(StableHash.of("é"))
        .isEqualTo(
            StableHash.mix(StableHash.fnvByte(StableHash.fnvByte(StableHash.start(), 0xc3), 0xa9)));
  }

  @Test
  void hexHasSixteenDigits() {
    assertThat(StableHash.hex(1)).isEqualTo("0000000000000001");
    assertThat(StableHash.hex(-1)).isEqualTo("ffffffffffffffff");
  }
}
