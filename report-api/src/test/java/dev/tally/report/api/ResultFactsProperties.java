package dev.tally.report.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.testing.HostileModel;
import dev.tally.report.api.testing.ModelGen;
import dev.tally.report.api.testing.ResultSpec;
import dev.tally.report.api.testing.WideModel;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.core.Gen;

/**
 * A result's digest and encoded size, computed while it is built, are exactly what their
 * specification says ({@link ResultSpec}: the documented digest, and the bytes of the result's JSON
 * written out), on results with every field at its widest and with hostile strings; and {@link
 * EncodedSize#of(Result)} is that size.
 */
class ResultFactsProperties {
  /** The seed and number of examples of the merge's properties, so both explore alike. */
  private static QuickTheory theory() {
    return QuickTheory.qt()
        .withFixedSeed(Long.getLong("tally.seed", 0x7a11_5eedL))
        .withExamples(Integer.getInteger("tally.examples", 1000));
  }

  private static void agreesWithSpecification(Result r) {
    assertThat(r.digest()).as("digest of %s", r).isEqualTo(ResultSpec.digest(r));
    assertThat(r.encodedSize()).as("encoded size of %s", r).isEqualTo(ResultSpec.encodedSize(r));
    assertThat(EncodedSize.of(r)).as("EncodedSize of %s", r).isEqualTo(ResultSpec.encodedSize(r));
    // a copy carries the same facts
    Result copy = r.toBuilder().build();
    assertThat(copy.digest()).isEqualTo(r.digest());
    assertThat(copy.encodedSize()).isEqualTo(r.encodedSize());
  }

  @Test
  void hostileResults() {
    Gen<Result> results =
        in -> {
          String namespace = HostileModel.namespace(in);
          Subject subject = HostileModel.subject(in, namespace);
          return HostileModel.result(in, subject, HostileModel.coverageKey(in), 2000);
        };
    theory().forAll(results).checkAssert(ResultFactsProperties::agreesWithSpecification);
  }

  @Test
  void wideResults() {
    Gen<Result> results =
        in -> WideModel.result(in, WideModel.dnsName(in), WideModel.coverageKey(in));
    theory().forAll(results).checkAssert(ResultFactsProperties::agreesWithSpecification);
  }

  @Test
  void resultsOfGeneratedPartials() {
    theory()
        .forAll(ModelGen.partials())
        .checkAssert(p -> p.results().forEach(ResultFactsProperties::agreesWithSpecification));
  }
}
