package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.testing.ModelGen;
import org.junit.jupiter.api.Test;

/** The merge of two states is a join: commutative, associative and idempotent. */
class MergeStateProperties {

  @Test
  void mergeIsCommutative() {
    Fixtures.theory()
        .forAll(ModelGen.events(20), ModelGen.events(20))
        .checkAssert(
            (x, y) -> {
              ReportState a = Fixtures.fold(x);
              ReportState b = Fixtures.fold(y);
              assertThat(a.merge(b)).isEqualTo(b.merge(a));
            });
  }

  @Test
  void mergeIsAssociative() {
    Fixtures.theory()
        .forAll(ModelGen.events(15), ModelGen.events(15), ModelGen.events(15))
        .checkAssert(
            (x, y, z) -> {
              ReportState a = Fixtures.fold(x);
              ReportState b = Fixtures.fold(y);
              ReportState c = Fixtures.fold(z);
              assertThat(a.merge(b).merge(c)).isEqualTo(a.merge(b.merge(c)));
            });
  }

  @Test
  void mergeIsIdempotent() {
    Fixtures.theory()
        .forAll(ModelGen.events(20))
        .checkAssert(
            x -> {
              ReportState a = Fixtures.fold(x);
              assertThat(a.merge(a)).isEqualTo(a);
            });
  }

  @Test
  void mergingTheStatesOfTwoStreamsEqualsFoldingBoth() {
    Fixtures.theory()
        .forAll(ModelGen.events(15), ModelGen.events(15))
        .checkAssert(
            (x, y) -> {
              var both = new java.util.ArrayList<>(x);
              both.addAll(y);
              assertThat(Fixtures.fold(x).merge(Fixtures.fold(y))).isEqualTo(Fixtures.fold(both));
            });
  }
}
