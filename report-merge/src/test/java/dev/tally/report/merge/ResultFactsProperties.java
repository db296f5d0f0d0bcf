package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.report.api.Result;
import dev.tally.report.api.Subject;
import dev.tally.report.api.testing.HostileModel;
import dev.tally.report.api.testing.ModelGen;
import dev.tally.report.api.testing.WideModel;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * A result's digest and encoded size, computed while it is built, are exactly those of the
 * reference implementations the merge is specified by ({@link Fingerprint#result(Result)}, {@link
 * EncodedSize#of(Result)}), on results with every field at its widest and with hostile strings.
 */
class ResultFactsProperties {

  private static void agreesWithReference(Result r) {
    assertThat(r.digest()).as("digest of %s", r).isEqualTo(Fingerprint.result(r));
    assertThat(r.encodedSize()).as("encoded size of %s", r).isEqualTo(EncodedSize.of(r));
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
    Fixtures.theory().forAll(results).checkAssert(ResultFactsProperties::agreesWithReference);
  }

  @Test
  void wideResults() {
    Gen<Result> results =
        in -> WideModel.result(in, WideModel.dnsName(in), WideModel.coverageKey(in));
    Fixtures.theory().forAll(results).checkAssert(ResultFactsProperties::agreesWithReference);
  }

  @Test
  void resultsOfGeneratedPartials() {
    Fixtures.theory()
        .forAll(ModelGen.partials())
        .checkAssert(p -> p.results().forEach(ResultFactsProperties::agreesWithReference));
  }
}
