package dev.tally.report.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A refusal's text reaches logs and Events and often quotes what a tenant wrote: it is one bounded
 * line whatever the input held.
 */
class InvalidReportExceptionTest {
  @Test
  void aHugeValueQuotedInTheReasonIsCutAndSaysHowLongItWas() {
    String huge = "x".repeat(1_400_000);
    var e = new InvalidReportException("report.checks[0].severity", "'" + huge + "' is unknown");

    assertThat(e.reason()).hasSizeLessThan(InvalidReportException.MAX_REASON + 40);
    assertThat(e.reason()).endsWith("… (1400013 characters)");
    assertThat(e.getMessage()).startsWith("report.checks[0].severity: 'xxx");
  }

  @Test
  void lineBreaksAndOtherControlCharactersAreEscaped() {
    var e =
        new InvalidReportException(
            "metadata.annotations[a\nb]", "is not a time: '2026\r\nFAKE LOG LINE\u0000\u2028'");

    assertThat(e.getMessage()).doesNotContain("\n", "\r", "\u0000", "\u2028");
    assertThat(e.field()).isEqualTo("metadata.annotations[a\\u000ab]");
    assertThat(e.reason())
        .isEqualTo("is not a time: '2026\\u000d\\u000aFAKE LOG LINE\\u0000\\u2028'");
  }

  @Test
  void anOrdinaryRefusalIsKeptAsItIs() {
    var e = new InvalidReportException("results[3].timestamp.nanos", "must be in [0, 999999999]");
    assertThat(e.getMessage()).isEqualTo("results[3].timestamp.nanos: must be in [0, 999999999]");
    assertThat(e.under("partial").field()).isEqualTo("partial.results[3].timestamp.nanos");
  }

  @Test
  void aCutReasonIsNotCutAgainOneLevelDeeper() {
    var e = new InvalidReportException("f", "y".repeat(10_000));
    assertThat(e.under("p").reason()).isEqualTo(e.reason());
  }
}
