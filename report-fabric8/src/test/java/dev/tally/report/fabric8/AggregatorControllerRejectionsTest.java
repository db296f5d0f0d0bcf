package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.CapacityExceededException;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InputCaps;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.metrics.RejectionReason;
import dev.tally.report.fabric8.metrics.TallyMetrics;
import dev.tally.report.fabric8.resource.ClusterPartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportResource;
import dev.tally.report.fabric8.resource.PartialReportSpec;
import dev.tally.report.fabric8.resource.ReportCodec;
import dev.tally.report.fabric8.resource.WireCoverageKey;
import dev.tally.report.fabric8.resource.WireResult;
import dev.tally.report.fabric8.resource.WireTimestamp;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * How the controller classifies a rejected partial report ({@link RejectionReason}), from the
 * exceptions the codec, the model and the aggregator really throw: the reasons {@link
 * TallyMetrics#partialRejected} receives.
 */
class AggregatorControllerRejectionsTest {
  private static final WireResult PASS =
      new WireResult(
          "kyverno", "require-labels", "r", "pass", null, null, null, null, null, null, null, null);

  @Test
  void aSubjectInAnotherNamespaceIsANamespaceRejection() {
    var e = refusal(partial("team-0", pod("team-1"), List.of(PASS)));
    assertThat(e.field()).isEqualTo("spec.subject.namespace");
    assertThat(RejectionReason.of(e)).isEqualTo(RejectionReason.NAMESPACE);
  }

  @Test
  void aClusterPartialReportAboutANamespacedSubjectIsANamespaceRejection() {
    var cluster = new ClusterPartialReportResource();
    cluster.setMetadata(new ObjectMetaBuilder().withName("cluster").build());
    cluster.setSpec(spec(pod("team-1"), List.of(PASS)));
    var e = refusal(cluster);
    assertThat(e.field()).isEqualTo("spec.subject.namespace");
    assertThat(RejectionReason.of(e)).isEqualTo(RejectionReason.NAMESPACE);
  }

  @Test
  void aResultNamingAnObjectInAnotherNamespaceIsANamespaceRejection() {
    var elsewhere =
        new WireResult(
            "kyverno",
            "require-labels",
            "r",
            "pass",
            null,
            null,
            null,
            null,
            null,
            null,
            List.of(pod("team-1")),
            null);
    var e = refusal(partial("team-0", pod("team-0"), List.of(elsewhere)));
    assertThat(e.field()).isEqualTo("spec.results[0].resources[0].namespace");
    assertThat(RejectionReason.of(e)).isEqualTo(RejectionReason.NAMESPACE);
  }

  @Test
  void anUnknownStatusIsAnInvalidRejection() {
    var maybe =
        new WireResult(
            "kyverno",
            "require-labels",
            "r",
            "maybe",
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null);
    var e = refusal(partial("team-0", pod("team-0"), List.of(maybe)));
    assertThat(e.field()).startsWith("spec.results[0].");
    assertThat(RejectionReason.of(e)).isEqualTo(RejectionReason.INVALID);
  }

  @Test
  void aCapOfTheAggregatorIsACapacityRejectionWhateverItsField() {
    ReportAggregator aggregator =
        ReportAggregator.builder().caps(InputCaps.defaults().withMaxResultsPerPartial(1)).build();
    Subject subject = Subject.of("v1", "Pod", "team-0", "app", "uid-app");
    List<Result> two = List.of(result("r0"), result("r1"));
    var partial =
        new PartialReport(
            "scanner",
            subject,
            "",
            Set.of(new CoverageKey("kyverno", "require-labels")),
            two,
            Timestamp.ofSeconds(1),
            0);
    var e = catchThrowableOfType(CapacityExceededException.class, () -> aggregator.apply(partial));
    assertThat(e).isNotNull();
    assertThat(RejectionReason.of(e)).isEqualTo(RejectionReason.CAPACITY);
    // a cap comes first, even about a namespace
    assertThat(
            RejectionReason.of(
                new CapacityExceededException("subject.namespace", "holds too much", 1)))
        .isEqualTo(RejectionReason.CAPACITY);
  }

  @Test
  void aRefusalOfTheAggregatorsGroupingIsAnInvalidRejection() {
    assertThat(RejectionReason.of(new InvalidReportException("grouping", "returned null")))
        .isEqualTo(RejectionReason.INVALID);
  }

  @Test
  void theMetricNamesAreTheOnesTallyMetricsDocuments() {
    assertThat(RejectionReason.CAPACITY.metricName()).isEqualTo("capacity");
    assertThat(RejectionReason.NAMESPACE.metricName()).isEqualTo("namespace");
    assertThat(RejectionReason.INVALID.metricName()).isEqualTo("invalid");
  }

  private static InvalidReportException refusal(CustomResource<PartialReportSpec, Void> resource) {
    var e =
        catchThrowableOfType(
            InvalidReportException.class, () -> ReportCodec.decodePartial(resource));
    assertThat(e).as("the codec refuses it").isNotNull();
    return e;
  }

  private static Result result(String rule) {
    return Result.builder()
        .source("kyverno")
        .policy("require-labels")
        .rule(rule)
        .status(ResultStatus.FAIL)
        .build();
  }

  private static PartialReportResource partial(
      String namespace, ObjectReference subject, List<WireResult> results) {
    var resource = new PartialReportResource();
    resource.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName("p").build());
    resource.setSpec(spec(subject, results));
    return resource;
  }

  private static PartialReportSpec spec(ObjectReference subject, List<WireResult> results) {
    return new PartialReportSpec(
        "scanner",
        subject,
        null,
        new WireTimestamp(1, 0),
        1L,
        List.of(new WireCoverageKey("kyverno", "require-labels")),
        results);
  }

  private static ObjectReference pod(@Nullable String namespace) {
    return new ObjectReferenceBuilder()
        .withApiVersion("v1")
        .withKind("Pod")
        .withNamespace(namespace)
        .withName("app")
        .withUid("uid-app")
        .build();
  }
}
