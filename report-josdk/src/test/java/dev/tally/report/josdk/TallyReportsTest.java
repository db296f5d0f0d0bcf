package dev.tally.report.josdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.report.api.Change;
import dev.tally.report.api.CoverageKey;
import dev.tally.report.api.InvalidReportException;
import dev.tally.report.api.PartialReport;
import dev.tally.report.api.ReportAggregator;
import dev.tally.report.api.Result;
import dev.tally.report.api.ResultStatus;
import dev.tally.report.api.Subject;
import dev.tally.report.api.Timestamp;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TallyReportsTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.ofEpochSecond(1_700_000_000L, 123_000_000), ZoneOffset.UTC);

  private static Deployment deployment() {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName("web")
        .withNamespace("shop")
        .withUid("uid-1")
        .withResourceVersion("42")
        .withGeneration(3L)
        .endMetadata()
        .build();
  }

  private static Result result(String policy, ResultStatus status) {
    return Result.builder().source("src").policy(policy).rule("r").status(status).build();
  }

  @Test
  void aReportNamesTheProducerThePrimaryTheDeclaredPoliciesAndTheClocksTime() {
    TallyReports reports =
        TallyReports.builder("image-policy")
            .policy("src", "a")
            .policy("src", "b")
            .clock(CLOCK)
            .build();

    PartialReport p = reports.partialReport(deployment(), List.of(result("a", ResultStatus.FAIL)));

    assertThat(p.producer()).isEqualTo("image-policy");
    assertThat(p.subject()).isEqualTo(Subject.of("apps/v1", "Deployment", "shop", "web", "uid-1"));
    assertThat(p.subjectVersion()).isEqualTo("42");
    assertThat(p.generation()).isEqualTo(3);
    assertThat(p.observedAt()).isEqualTo(new Timestamp(1_700_000_000L, 123_000_000));
    // b is covered without a result: an earlier result of b is retracted
    assertThat(p.coverage())
        .containsExactly(CoverageKey.of("src", "a"), CoverageKey.of("src", "b"));
  }

  @Test
  void withoutDeclaredPoliciesTheCoverageIsTheResultsPolicies() {
    PartialReport p =
        TallyReports.builder("scanner")
            .clock(CLOCK)
            .build()
            .partialReport(deployment(), List.of(result("a", ResultStatus.PASS)));

    assertThat(p.effectiveCoverage()).isEqualTo(Set.of(CoverageKey.of("src", "a")));
  }

  @Test
  void aResultOutsideTheDeclaredPoliciesIsRefusedNamingTheField() {
    TallyReports reports = TallyReports.builder("p").policy("src", "a").clock(CLOCK).build();

    assertThatThrownBy(
            () -> reports.partialReport(deployment(), List.of(result("z", ResultStatus.FAIL))))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("results[0].policy");
  }

  @Test
  void reportingBeforeTheEventSourceStartedSaysHowToStartIt() {
    TallyReports reports = TallyReports.of("p");

    assertThat(reports.running()).isFalse();
    assertThatThrownBy(() -> reports.report(deployment(), List.of(result("a", ResultStatus.PASS))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("prepareEventSources");
    assertThat(reports.aggregator()).isEmpty();
  }

  @Test
  void aBadProducerNameFailsWhenBuiltNotInReconcile() {
    assertThatThrownBy(() -> TallyReports.builder(""))
        .isInstanceOf(InvalidReportException.class)
        .hasMessageContaining("policy");
  }

  /**
   * On fabric8 7.x (Jackson 2) the aggregate kinds of report-fabric8 read back through fabric8's
   * own serialization. Without report-fabric8's Jackson 2 {@code @JsonDeserialize} on them, reading
   * a PolicyReport overflowed the stack (fabric8's KubernetesDeserializer calls itself for a
   * HasMetadata class that does not name its own deserializer).
   */
  @Test
  void theAggregatorsSerializationReadsBackWhatTheCodecWrites() {
    ReportAggregator aggregator = ReportAggregator.builder().build();
    aggregator.apply(
        TallyReports.builder("p")
            .clock(CLOCK)
            .build()
            .partialReport(deployment(), List.of(result("a", ResultStatus.FAIL))));
    PolicyReportResource written =
        (PolicyReportResource)
            ReportCodec.encode(((Change.Create) aggregator.flush().changes().get(0)).report());
    KubernetesSerialization serialization = new KubernetesSerialization(); // fabric8 7.x's own

    String json = serialization.asJson(written);
    PolicyReportResource read = serialization.unmarshal(json, PolicyReportResource.class);
    Object generic = serialization.unmarshal(json);

    assertThat(serialization.asJson(read)).isEqualTo(json);
    assertThat(read.getResults()).hasSize(1);
    assertThat(generic).isInstanceOf(PolicyReportResource.class);
  }
}
