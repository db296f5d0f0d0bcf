package dev.tally.report.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.strings;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Names are valid DNS-1123 subdomains for any group name, and distinct groups get distinct names.
 */
class ReportNamesProperties {
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  @Test
  void everyNameIsAValidDns1123Subdomain() {
    Fixtures.theory()
        .forAll(
            strings().allPossible().ofLengthBetween(1, 400),
            strings().ascii().ofLengthBetween(0, 40))
        .checkAssert(
            (group, suffix) -> {
              String hex =
                  suffix.isEmpty() ? "" : Long.toHexString(suffix.hashCode() & 0xffffffffL);
              String name = ReportNames.partition(ReportNames.base("namespace", group), hex);
              assertThat(name).matches(DNS_SUBDOMAIN);
              assertThat(name.length()).isLessThanOrEqualTo(253);
            });
  }

  @Test
  void distinctGroupsGetDistinctNames() {
    Fixtures.theory()
        .forAll(
            strings().allPossible().ofLengthBetween(1, 300),
            strings().allPossible().ofLengthBetween(1, 300))
        .checkAssert(
            (a, b) -> {
              if (!a.equals(b)) {
                assertThat(ReportNames.base("policy", a))
                    .isNotEqualTo(ReportNames.base("policy", b));
              }
            });
  }
}
