package dev.tally.report.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link Result#sharingValuesOf}: a result stating the same as a held one (another subject's result
 * of the same rule) is made of the held one's instances, with its own resources and timestamp;
 * anything it states differently gives null, never a result that states something else.
 */
class ResultSharingValuesTest {
  private static final Subject POD = Subject.of("v1", "Pod", "ns", "pod-1", "uid-1");
  private static final Subject OTHER = Subject.of("v1", "Pod", "ns", "pod-2", "uid-2");

  private static Result.Builder builder(Subject about) {
    return Result.builder()
        .source("kyverno")
        .policy("require-labels")
        .rule("check")
        .status(ResultStatus.FAIL)
        .severity(Severity.HIGH)
        .category("Best Practices")
        .message("label 'team' is required")
        .scored(true)
        .properties(Map.of("team", "x"))
        .timestamp(Timestamp.ofSeconds(10))
        .resource(about);
  }

  @SuppressWarnings("StringOperationCanBeSimplified")
  private static String copy(String s) {
    return new String(s.toCharArray());
  }

  /** The same result as decoded: every string its own instance. */
  private static Result decoded(Subject about) {
    return builder(about)
        .source(copy("kyverno"))
        .policy(copy("require-labels"))
        .rule(copy("check"))
        .category(copy("Best Practices"))
        .message(copy("label 'team' is required"))
        .properties(Map.of(copy("team"), copy("x")))
        .timestamp(Timestamp.ofSeconds(10))
        .resource(
            new Subject(
                copy(about.apiVersion()),
                copy(about.kind()),
                copy(about.namespace()),
                copy(about.name()),
                copy(about.uid())))
        .build();
  }

  @Test
  void aResultStatingWhatAHeldOneStatesIsMadeOfItsInstances() {
    Result held = builder(OTHER).build();
    Result r = decoded(POD);
    List<Subject> resources = List.of(POD);
    Timestamp at = Timestamp.ofSeconds(10);
    Result shared = r.sharingValuesOf(held, resources, at);
    assertThat(shared).isNotNull().isEqualTo(r).isEqualTo(builder(POD).build());
    assertThat(shared.source()).isSameAs(held.source());
    assertThat(shared.policy()).isSameAs(held.policy());
    assertThat(shared.rule()).isSameAs(held.rule());
    assertThat(shared.category()).isSameAs(held.category());
    assertThat(shared.message()).isSameAs(held.message());
    assertThat(shared.properties()).isSameAs(held.properties());
    assertThat(shared.resources()).isSameAs(resources);
    assertThat(shared.timestamp()).containsSame(at);
    assertThat(shared.digest()).isEqualTo(r.digest()).isNotEqualTo(held.digest());
    assertThat(shared.encodedSize()).isEqualTo(r.encodedSize());
  }

  @Test
  void aMutableListOfResourcesIsCopied() {
    Result held = builder(OTHER).build();
    List<Subject> resources = new ArrayList<>(List.of(POD));
    Result shared = decoded(POD).sharingValuesOf(held, resources, Timestamp.ofSeconds(10));
    resources.clear();
    assertThat(shared).isNotNull();
    assertThat(shared.resources()).containsExactly(POD);
  }

  @Test
  void theSameInstancesGiveTheResultItself() {
    Result r = builder(POD).build();
    assertThat(r.sharingValuesOf(r, r.resources(), r.timestamp().orElse(null))).isSameAs(r);
  }

  @Test
  void anyFieldStatedDifferentlyGivesNull() {
    Result r = builder(POD).build();
    List<UnaryOperator<Result.Builder>> changes =
        List.of(
            b -> b.source("trivy"),
            b -> b.policy("disallow-latest-tag"),
            b -> b.rule("other"),
            b -> b.status(ResultStatus.PASS),
            b -> b.severity(Severity.LOW),
            b -> b.severity(null),
            b -> b.category("Other"),
            b -> b.message("label 'team' is missing"),
            b -> b.scored(false),
            b -> b.scored(null),
            b -> b.properties(Map.of("team", "y")),
            b -> b.resourceSelector(LabelSelector.matching(Map.of("app", "web"))));
    for (UnaryOperator<Result.Builder> change : changes) {
      Result held = change.apply(builder(POD)).build();
      assertThat(r.sharingValuesOf(held, r.resources(), r.timestamp().orElse(null)))
          .as("held %s", held)
          .isNull();
    }
    // its own resources and timestamp must be the ones given
    assertThat(r.sharingValuesOf(r, List.of(OTHER), r.timestamp().orElse(null))).isNull();
    assertThat(r.sharingValuesOf(r, List.of(), r.timestamp().orElse(null))).isNull();
    assertThat(r.sharingValuesOf(r, r.resources(), Timestamp.ofSeconds(11))).isNull();
    assertThat(r.sharingValuesOf(r, r.resources(), null)).isNull();
  }
}
