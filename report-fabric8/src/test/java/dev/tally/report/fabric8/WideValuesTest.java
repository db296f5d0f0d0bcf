package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.report.api.InvalidReportException;
import dev.tally.report.fabric8.resource.PolicyReportResource;
import dev.tally.report.fabric8.resource.ReportCodec;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

/**
 * Values the API server stores although the model reads them as {@code int}: a summary count (the
 * report CRDs say {@code type: integer}, with no format) binds (one object that did not would fail
 * the typed LIST of every owned report), and the codec refuses the one object naming the field. The
 * real server's side: {@code RealServerBadObjectsTest}.
 */
class WideValuesTest {
  @Test
  void aReportWithASummaryCountPastInt32BindsAndDoesNotDecode() {
    String json =
        "{\"apiVersion\":\"wgpolicyk8s.io/v1alpha2\",\"kind\":\"PolicyReport\","
            + "\"metadata\":{\"name\":\"r\",\"namespace\":\"team-a\","
            + "\"labels\":{\"app.kubernetes.io/managed-by\":\"tally\"}},"
            + "\"summary\":{\"fail\":3000000000}}";

    PolicyReportResource bound = Serialization.unmarshal(json, PolicyReportResource.class);

    assertThat(bound.getSummary().fail()).isEqualTo(3_000_000_000L);
    var refused =
        catchThrowableOfType(InvalidReportException.class, () -> ReportCodec.decode(bound));
    assertThat(refused.getMessage()).startsWith("summary.fail: ").contains("3000000000");
  }
}
