package dev.tally.report.merge.names;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.strings;

import dev.tally.report.api.AggregatorConfig;
import dev.tally.report.api.ChangeSet;
import dev.tally.report.api.Grouping;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.ReportLayout;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.merge.Fixtures;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

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

  /**
   * A group named like another group's digested name (its sanitized name, '-' and the digest) gets
   * a name of its own: a plain name never ends like a digested one.
   */
  @Test
  void aGroupCannotTakeTheNameOfAGroupWhoseNameWasDigested() {
    String digested = ReportNames.base("subject", "Web-0");
    String forged = digested.substring("tally-subject-".length());
    assertThat(ReportNames.base("subject", forged)).isNotEqualTo(digested);
  }

  /**
   * Through the public API: a tenant whose subject uid is another subject's report name (less the
   * prefix) in the same namespace does not make two groups write one object, so the flush, which
   * refuses two changes for one object, goes through for every namespace.
   */
  @Test
  void aForgedUidDoesNotMakeTwoGroupsWriteOneObject() {
    ReportAggregator a = ReportAggregator.builder().grouping(Grouping.perSubject()).build();
    a.apply(partial("UID-Web-0"));
    String digested = a.flush().creates().get(0).report().ref().name();
    a.apply(partial(digested.substring("tally-subject-".length())));
    a.apply(
        PartialReport.builder()
            .producer("background")
            .subject(Subject.of("v1", "Pod", "other", "db", "uid-db"))
            .results(List.of(fail()))
            .observedAt(Timestamp.ofSeconds(2))
            .build());

    ChangeSet next = a.flush();

    assertThat(next.creates()).hasSize(2);
    assertThat(a.aggregates()).extracting(r -> r.ref().name()).doesNotHaveDuplicates();
  }

  /** Kyverno's layout: every name is a valid DNS-1123 subdomain, its partitions' names too. */
  @Test
  void everyKyvernoLayoutNameIsAValidDns1123Subdomain() {
    Fixtures.theory()
        .forAll(
            strings().allPossible().ofLengthBetween(1, 400),
            strings().ascii().ofLengthBetween(0, 40))
        .checkAssert(
            (uid, suffix) -> {
              String hex =
                  suffix.isEmpty() ? "" : Long.toHexString(suffix.hashCode() & 0xffffffffL);
              String name =
                  ReportNames.partition(
                      ReportNames.base(ReportLayout.KYVERNO, "kyverno", uid), hex);
              assertThat(name).matches(DNS_SUBDOMAIN);
              assertThat(name.length()).isLessThanOrEqualTo(253);
            });
  }

  /**
   * Kyverno's layout: a uid that is a plain name is the name, and distinct uids get distinct names,
   * over arbitrary strings and over uid-like ones (lower-case hex and '-', some of them ending like
   * a digest, some too long).
   */
  @Test
  void inKyvernosLayoutAPlainUidIsTheNameAndDistinctUidsGetDistinctNames() {
    var uidLike =
        strings().betweenCodePoints('-', 'f').ofLengthBetween(1, 200).map(KyvernoNames::uidLike);
    Fixtures.theory()
        .forAll(
            strings().allPossible().ofLengthBetween(1, 300).mix(uidLike),
            strings().allPossible().ofLengthBetween(1, 300).mix(uidLike))
        .checkAssert(
            (a, b) -> {
              String nameA = ReportNames.base(ReportLayout.KYVERNO, "kyverno", a);
              String nameB = ReportNames.base(ReportLayout.KYVERNO, "kyverno", b);
              if (!a.equals(b)) {
                assertThat(nameA).isNotEqualTo(nameB);
              }
              if (KyvernoNames.plain(a)) {
                assertThat(nameA).isEqualTo(a);
              } else {
                assertThat(nameA).startsWith("tally-kyverno-").matches(".*-[0-9a-f]{32}");
              }
            });
  }

  /** A uid made to look like another uid's digested name gets a name of its own. */
  @Test
  void inKyvernosLayoutAUidCannotTakeTheNameOfAUidWhoseNameWasDigested() {
    String digested = ReportNames.base(ReportLayout.KYVERNO, "kyverno", "Web-0");
    assertThat(digested).startsWith("tally-kyverno-web-0-");
    assertThat(ReportNames.base(ReportLayout.KYVERNO, "kyverno", digested)).isNotEqualTo(digested);
    String tooLong = "a".repeat(ReportNames.MAX_BASE + 1);
    assertThat(ReportNames.base(ReportLayout.KYVERNO, "kyverno", tooLong)).isNotEqualTo(tooLong);
    String maxLong = "a".repeat(ReportNames.MAX_BASE);
    assertThat(ReportNames.base(ReportLayout.KYVERNO, "kyverno", maxLong)).isEqualTo(maxLong);
  }

  /**
   * Another input's names, in Tally's layout: valid DNS-1123 subdomains, partitions included, that
   * begin with the input and a {@code --}, the first of the name.
   */
  @Test
  void everyNameOfAnotherInputIsAValidDns1123SubdomainStartingWithItsInput() {
    Fixtures.theory()
        .forAll(
            InputNames.inputs(),
            strings().allPossible().ofLengthBetween(1, 400).mix(InputNames.plainGroups()),
            strings().ascii().ofLengthBetween(0, 40))
        .checkAssert(
            (input, group, suffix) -> {
              String hex =
                  suffix.isEmpty() ? "" : Long.toHexString(suffix.hashCode() & 0xffffffffL);
              for (String groupingId : InputNames.GROUPING_IDS) {
                String base = ReportNames.base(ReportLayout.TALLY, input, groupingId, group);
                String name = ReportNames.partition(base, hex);
                assertThat(name).matches(DNS_SUBDOMAIN);
                assertThat(name.length()).isLessThanOrEqualTo(253);
                if (input.equals(AggregatorConfig.DEFAULT_INPUT)) {
                  assertThat(base)
                      .isEqualTo(ReportNames.base(groupingId, group))
                      .doesNotContain("--");
                } else {
                  assertThat(base).startsWith("tally-" + input + "--");
                  assertThat(base.indexOf("--")).isEqualTo(("tally-" + input).length());
                }
              }
            });
  }

  /**
   * Two inputs' groups never share a name, whatever the inputs (the default among them), the groups
   * (arbitrary, or plain names), and the grouping; within one input, distinct groups don't.
   */
  @Test
  void namesOfDistinctInputsOrGroupsNeverMeet() {
    Fixtures.theory()
        .forAll(
            InputNames.inputs(),
            InputNames.inputs(),
            strings().allPossible().ofLengthBetween(1, 300).mix(InputNames.plainGroups()),
            strings().allPossible().ofLengthBetween(1, 300).mix(InputNames.plainGroups()))
        .checkAssert(
            (inputA, inputB, a, b) -> {
              for (String groupingId : InputNames.GROUPING_IDS) {
                String nameA = ReportNames.base(ReportLayout.TALLY, inputA, groupingId, a);
                String nameB = ReportNames.base(ReportLayout.TALLY, inputB, groupingId, b);
                if (!inputA.equals(inputB) || !a.equals(b)) {
                  assertThat(nameA).as("%s %s / %s %s", inputA, a, inputB, b).isNotEqualTo(nameB);
                }
              }
            });
  }

  /**
   * The default input cannot take another input's name with a grouping named like the input, nor
   * another input the default's, nor one input another's by a group that holds the other's name.
   */
  @Test
  void anInputsNameCannotBeTakenByAnotherInputsGrouping() {
    String trivys = ReportNames.base(ReportLayout.TALLY, "trivy", "namespace", "all");
    assertThat(trivys).isEqualTo("tally-trivy--namespace-all");
    assertThat(ReportNames.base("trivy", "-namespace-all")).isNotEqualTo(trivys);
    assertThat(ReportNames.base("trivy-", "namespace-all")).isNotEqualTo(trivys);
    assertThat(ReportNames.base(ReportLayout.TALLY, "trivy", "namespace-all", "x"))
        .isNotEqualTo(ReportNames.base(ReportLayout.TALLY, "trivy-namespace", "all", "x"));
    assertThat(ReportNames.base(ReportLayout.TALLY, "tally", "namespace", "all"))
        .isEqualTo("tally-namespace-all");
    String digested = ReportNames.base(ReportLayout.TALLY, "trivy", "subject", "Web-0");
    assertThat(digested).startsWith("tally-trivy--subject-web-0-").matches(".*-[0-9a-f]{32}");
    assertThat(
            ReportNames.base(
                ReportLayout.TALLY,
                "trivy",
                "subject",
                digested.substring("tally-trivy--subject-".length())))
        .isNotEqualTo(digested);
  }

  /** Test-side inputs and groups for the names of inputs. */
  private static final class InputNames {
    static final List<String> GROUPING_IDS =
        List.of("namespace", "policy", "subject", "trivy", "trivy-namespace", "a--b");

    /** Valid input names: a few fixed ones (the default among them) and made-up ones. */
    static Gen<String> inputs() {
      Gen<String> fixed =
          Generate.pick(
              List.of(
                  AggregatorConfig.DEFAULT_INPUT,
                  "trivy",
                  "kyverno",
                  "trivy-namespace",
                  "a",
                  "my-scanner-2"));
      return fixed.mix(
          strings().betweenCodePoints('-', 'z').ofLengthBetween(1, 70).map(InputNames::input));
    }

    /** {@code s} made a valid input name: letters and digits kept, runs of others one '-'. */
    static String input(String s) {
      StringBuilder sb = new StringBuilder();
      for (char c : s.toCharArray()) {
        boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (alnum) {
          sb.append(c);
        } else if (sb.length() > 0 && sb.charAt(sb.length() - 1) != '-') {
          sb.append('-');
        }
      }
      String cut = sb.length() > 63 ? sb.substring(0, 63) : sb.toString();
      while (cut.endsWith("-")) {
        cut = cut.substring(0, cut.length() - 1);
      }
      return cut.isEmpty() ? "x" : cut;
    }

    /** Groups made of {@code [a-z0-9-]}, so that many names are plain. */
    static Gen<String> plainGroups() {
      return strings()
          .betweenCodePoints('-', 'z')
          .ofLengthBetween(1, 200)
          .map(
              s -> {
                StringBuilder sb = new StringBuilder();
                for (char c : s.toCharArray()) {
                  if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
                    sb.append(c);
                  }
                }
                return sb.isEmpty() ? "0" : sb.toString();
              });
    }
  }

  /** Test-side statement of which uids Kyverno's layout uses as names, written independently. */
  private static final class KyvernoNames {
    static boolean plain(String uid) {
      if (uid.isEmpty() || uid.length() > ReportNames.MAX_BASE) {
        return false;
      }
      for (char c : uid.toCharArray()) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
          return false;
        }
      }
      if (uid.startsWith("-") || uid.endsWith("-")) {
        return false;
      }
      // ends like a digested name: '-' and 32 hex digits
      return !uid.matches(".*-[0-9a-f]{32}");
    }

    /** Code points between '-' and 'f' kept only where they are uid characters: hex and '-'. */
    static String uidLike(String s) {
      StringBuilder sb = new StringBuilder();
      for (char c : s.toCharArray()) {
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-') {
          sb.append(c);
        }
      }
      return sb.isEmpty() ? "0" : sb.toString();
    }
  }

  private static PartialReport partial(String uid) {
    return PartialReport.builder()
        .producer("background")
        .subject(Subject.of("v1", "Pod", "tenant", "web-0", uid))
        .results(List.of(fail()))
        .observedAt(Timestamp.ofSeconds(1))
        .build();
  }

  private static Result fail() {
    return Result.builder()
        .source("kyverno")
        .policy("p")
        .rule("r")
        .status(ResultStatus.FAIL)
        .build();
  }
}
