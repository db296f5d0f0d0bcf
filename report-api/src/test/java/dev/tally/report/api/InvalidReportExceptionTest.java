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

  /**
   * A subject named in a log line that is not a refusal (the adapter's WARNs about adoption and
   * gone-checks) is one line too: a tenant's claim with a line break cannot forge another line.
   */
  @Test
  void aSubjectIsDisplayedOnOneLine() {
    Subject forged =
        Subject.of("v1", "Pod\r", "shop", "web\n2026-12-03T00:00:00Z INFO forged", "u-1");
    assertThat(forged.display())
        .isEqualTo("Pod\\u000d shop/web\\u000a2026-12-03T00:00:00Z INFO forged")
        .doesNotContain("\n", "\r");
    assertThat(Subject.of("v1", "Pod", "shop", "web", "u").display()).isEqualTo("Pod shop/web");
  }
}
