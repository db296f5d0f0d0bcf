package dev.tally.report.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Result#withValues} is {@code toBuilder()} with those values and {@code build()}: equal
 * values are taken as they are (with the digest and size already computed), others are validated.
 */
class ResultWithValuesTest {
  private static final Subject POD = Subject.of("v1", "Pod", "ns", "pod-1", "uid-1");

  private static Result result() {
    return Result.builder()
        .source("kyverno")
        .policy("require-labels")
        .rule("check")
        .status(ResultStatus.FAIL)
        .category("Best Practices")
        .message("label 'team' is required")
        .timestamp(Timestamp.ofSeconds(10))
        .resource(POD)
        .build();
  }

  @SuppressWarnings("StringOperationCanBeSimplified")
  private static String copy(String s) {
    return new String(s.toCharArray());
  }

  @Test
  void equalValuesInOtherInstancesGiveAnEqualResultMadeOfThem() {
    Result r = result();
    String source = copy(r.source());
    String message = copy(r.message());
    Subject pod = new Subject("v1", copy("Pod"), "ns", copy("pod-1"), "uid-1");
    List<Subject> resources = new ArrayList<>(List.of(pod));
    Result made =
        r.withValues(
            source,
            r.policy(),
            r.rule(),
            r.category(),
            message,
            resources,
            Timestamp.ofSeconds(10));
    assertThat(made).isEqualTo(r).isEqualTo(r.toBuilder().build());
    assertThat(made.source()).isSameAs(source);
    assertThat(made.message()).isSameAs(message);
    assertThat(made.resources().get(0)).isSameAs(pod);
    assertThat(made.digest()).isEqualTo(r.digest());
    assertThat(made.encodedSize()).isEqualTo(r.encodedSize());
    // an immutable copy, as the builder makes: the caller's list may change afterwards
    resources.clear();
    assertThat(made.resources()).containsExactly(pod);
  }

  @Test
  void theSameInstancesGiveTheResultItself() {
    Result r = result();
    assertThat(
            r.withValues(
                r.source(),
                r.policy(),
                r.rule(),
                r.category(),
                r.message(),
                r.resources(),
                r.timestamp().orElse(null)))
        .isSameAs(r);
  }

  @Test
  void otherValuesAreBuiltAndValidatedLikeTheBuilder() {
    Result r = result();
    Result other =
        r.withValues("trivy", r.policy(), "", "", "other", List.of(), r.timestamp().orElse(null));
    Result expected =
        r.toBuilder()
            .source("trivy")
            .rule("")
            .category("")
            .message("other")
            .resources(List.of())
            .build();
    assertThat(other).isEqualTo(expected);
    assertThat(other.digest()).isEqualTo(expected.digest()).isNotEqualTo(r.digest());
    assertThat(other.encodedSize()).isEqualTo(expected.encodedSize());

    var e =
        catchThrowableOfType(
            InvalidReportException.class,
            () ->
                r.withValues(
                    r.source(), " ", r.rule(), r.category(), r.message(), r.resources(), null));
    assertThat(e).isNotNull();
    assertThat(e.field()).isEqualTo("policy");
  }
}
